/**
 * Pick the key-value store and event bus from configuration: Redis when a URL
 * is given (`redis://`, or `rediss://` for TLS; a password goes in the URL as
 * `redis://:password@host:6379`), otherwise the in-process kinds.
 */

import type { ConnectionOptions } from 'node:tls'
import { GovError, type KeyValueStore } from '@gov/core'
import type { Redis } from 'ioredis'
import type { ActivityStore } from '../agents/activity.js'
import { integerSetting } from '../config.js'
import { MemorySessionBackend } from '../sessions/memory-session-backend.js'
import { RedisSessionBackend } from '../sessions/redis-session-backend.js'
import type { SessionBackend } from '../sessions/session-backend.js'
import {
  type EventBus,
  endConnection,
  type HandlerErrorListener,
  MemoryEventBus,
  RedisEventBus,
} from './event-bus.js'
import { MemoryKv } from './memory-kv.js'
import { RedisActivityStore } from './redis-activity.js'
import { RedisKv } from './redis-kv.js'
import { checkRedisTlsUrl, readRedisTlsSettings, redisTlsOptions } from './redis-tls.js'

/** Options of {@link createKv}. */
export interface CreateKvOptions {
  /** `redis://…` or `rediss://…` (`REDIS_URL`). Without it everything stays in process. */
  redisUrl?: string
  /** Put before every Redis key and channel; default `gov:`. */
  prefix?: string
  /** Extra TLS settings for `rediss://` (an internal CA, a client certificate). */
  tls?: ConnectionOptions
  /** Bound on `healthy()`; default 1000 ms. */
  healthTimeoutMs?: number
  /**
   * Bound on every Redis command, queued ones included; default 1000 ms. While Redis
   * is down or hung, a step's call fails within this time instead of waiting for it.
   */
  commandTimeoutMs?: number
  /** Most entries of the in-process store; default 100 000. */
  maxEntries?: number
  /** Connection errors (Redis down, refused credentials): reported here instead of thrown, as retries follow. */
  onError?: (error: Error) => void
  /** A bus handler threw. */
  onHandlerError?: HandlerErrorListener
}

/** The key-value store and event bus of one gateway, and their health. */
export interface KvHandle {
  readonly kind: 'memory' | 'redis'
  readonly kv: KeyValueStore
  /** Per-(agent, session) step state with a sliding TTL. */
  readonly sessions: SessionBackend
  readonly bus: EventBus
  /**
   * Call activity shared by every replica (Redis), for the fleet overview and
   * `gov_active_agents`; undefined in process, where each gateway keeps its own.
   */
  readonly activity?: ActivityStore
  /** True when the store answers; false (never a throw, never a hang) when it does not. */
  healthy(): Promise<boolean>
  close(): Promise<void>
}

/** Build the key-value store and bus. Redis connects on first use, so this never waits on the network. */
export async function createKv(options: CreateKvOptions = {}): Promise<KvHandle> {
  if (!options.redisUrl) {
    const bus = new MemoryEventBus(options.onHandlerError)
    return {
      kind: 'memory',
      kv: new MemoryKv(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
      sessions: new MemorySessionBackend(),
      bus,
      healthy: async () => true,
      close: () => bus.close(),
    }
  }
  const prefix = options.prefix ?? 'gov:'
  const healthTimeoutMs = options.healthTimeoutMs ?? 1000
  const onError = options.onError ?? (() => {})
  // ioredis is loaded only when Redis is configured: it defines a `class … extends String`,
  // which makes `charCodeAt` about 3× slower process-wide, and the detectors live on it.
  const { Redis } = await import('ioredis')
  const client = new Redis(options.redisUrl, {
    lazyConnect: true,
    // A command fails after a few reconnect attempts or its timeout, never queues forever.
    maxRetriesPerRequest: 2,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    connectTimeout: 2000,
    // Reconnect soon after Redis is back: replicas share state through it.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    ...(options.tls && options.redisUrl.startsWith('rediss:') ? { tls: options.tls } : {}),
  })
  // Without a listener ioredis prints every failed reconnect as an unhandled error.
  client.on('error', onError)
  const subscriber = client.duplicate()
  subscriber.on('error', onError)
  // Why the connection is down (TLS, credentials), until it is up again: the failed command only says it timed out.
  let connectionError: Error | undefined
  for (const connection of [client, subscriber]) {
    connection.on('error', (err: Error) => {
      connectionError = err
    })
    connection.on('ready', () => {
      connectionError = undefined
    })
  }
  const lastError = () => connectionError
  const bus = new RedisEventBus(client, subscriber, prefix, options.onHandlerError, lastError)
  const activity = new RedisActivityStore(client, { prefix, onError })
  return {
    kind: 'redis',
    kv: new RedisKv(client, prefix, lastError),
    sessions: new RedisSessionBackend(client, prefix),
    bus,
    activity,
    healthy: async () => bus.listening && (await ping(client, healthTimeoutMs)),
    async close() {
      // The last second's calls are counted before the connection goes.
      await activity.close()
      await bus.close()
      await endConnection(client)
    },
  }
}

/**
 * The Redis settings from the environment besides the URL: `GOV_REDIS_PREFIX`
 * (default `gov:`; two deployments on one Redis need different ones),
 * `GOV_REDIS_COMMAND_TIMEOUT_MS` (default 1000; the first command of a
 * connection includes connecting) and the `GOV_REDIS_TLS_*` files (see
 * `redis-tls.ts`). Throws a coded error naming what to change; TLS files with
 * a `redis://` URL are an error, not ignored.
 */
export function readRedisSettings(
  env: NodeJS.ProcessEnv,
  redisUrl: string | undefined,
  onError: (error: Error) => void = () => {},
): Pick<CreateKvOptions, 'prefix' | 'tls' | 'commandTimeoutMs'> {
  const prefix = env.GOV_REDIS_PREFIX?.trim()
  if (prefix !== undefined && prefix !== '' && !/^[A-Za-z0-9_.:-]{1,64}$/.test(prefix)) {
    throw new GovError(
      'GOV_ERR_CONFIG_INVALID',
      `GOV_REDIS_PREFIX must be 1–64 of A–Z a–z 0–9 _ . : -, got "${prefix}"`,
      500,
    )
  }
  const commandTimeoutMs = integerSetting(env, 'GOV_REDIS_COMMAND_TIMEOUT_MS', undefined, 1)
  const tls = readRedisTlsSettings(env)
  checkRedisTlsUrl(redisUrl, tls)
  return {
    ...(prefix ? { prefix } : {}),
    ...(commandTimeoutMs ? { commandTimeoutMs } : {}),
    ...(tls && redisUrl ? { tls: redisTlsOptions(tls, onError) } : {}),
  }
}

/** PING with a deadline: a Redis that accepts connections but does not answer counts as down. */
async function ping(client: Redis, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  const answer = client.ping().then(
    (reply) => reply === 'PONG',
    () => false,
  )
  try {
    return await Promise.race([answer, deadline])
  } finally {
    clearTimeout(timer)
  }
}
