/**
 * Call activity shared by every replica, in Redis: the fleet overview's
 * scores and `gov_active_agents` then read the same on each replica.
 *
 * Calls are counted in process and written once a second (and before reads
 * and at close) in one pipeline: the call path never waits on Redis. Keys:
 * - `{prefix}activity:active` — sorted set, agent id scored by its last call (epoch ms);
 * - `{prefix}activity:calls:{agent}` — list of the last 100 call codes, oldest first;
 * - `{prefix}activity:count:{agent}` — total calls.
 * An agent's keys expire 30 days after its last call.
 */
import type { Redis } from 'ioredis'
import {
  ACTIVITY_WINDOW,
  type ActivityCode,
  type ActivityStore,
  type AgentWindow,
} from '../agents/activity.js'
import { unavailableError } from './kv-errors.js'

/** How long an idle agent's activity is kept. */
const RETENTION_MS = 30 * 24 * 3600_000

interface Pending {
  codes: string
  calls: number
  lastSeen: number
}

/** Options of {@link RedisActivityStore}. */
export interface RedisActivityOptions {
  /** Put before every key; default `gov:`. */
  prefix?: string
  /** How often counted calls are written; default 1000 ms. */
  flushMs?: number
  /** A write failed (Redis down): those calls are not counted. */
  onError?: (error: Error) => void
}

/** An {@link ActivityStore} in Redis. The client is shared, not owned. */
export class RedisActivityStore implements ActivityStore {
  readonly #redis: Redis
  readonly #prefix: string
  readonly #onError: (error: Error) => void
  #pending = new Map<string, Pending>()
  #timer: NodeJS.Timeout | undefined
  #flushing: Promise<void> = Promise.resolve()

  constructor(redis: Redis, options: RedisActivityOptions = {}) {
    this.#redis = redis
    this.#prefix = `${options.prefix ?? 'gov:'}activity:`
    this.#onError = options.onError ?? (() => {})
    this.#timer = setInterval(() => {
      this.flush().catch(() => {})
    }, options.flushMs ?? 1000)
    this.#timer.unref()
  }

  append(agentId: string, code: ActivityCode, at: number): void {
    let pending = this.#pending.get(agentId)
    if (!pending) {
      pending = { codes: '', calls: 0, lastSeen: at }
      this.#pending.set(agentId, pending)
    }
    // Only the last 100 codes can be in a window; the count keeps the rest.
    pending.codes = (pending.codes + code).slice(-ACTIVITY_WINDOW)
    pending.calls += 1
    if (at > pending.lastSeen) pending.lastSeen = at
  }

  /** Write what was counted since the last flush, in one pipeline. Failures go to `onError`. */
  flush(): Promise<void> {
    // One flush at a time, in order: a read waits for the writes before it.
    this.#flushing = this.#flushing.then(() => this.#write())
    return this.#flushing
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) return
    const batch = this.#pending
    this.#pending = new Map()
    const active = `${this.#prefix}active`
    const pipeline = this.#redis.pipeline()
    let newest = 0
    for (const [agentId, p] of batch) {
      const calls = this.#key('calls', agentId)
      const count = this.#key('count', agentId)
      pipeline.rpush(calls, ...p.codes.split(''))
      pipeline.ltrim(calls, -ACTIVITY_WINDOW, -1)
      pipeline.incrby(count, p.calls)
      pipeline.pexpire(calls, RETENTION_MS)
      pipeline.pexpire(count, RETENTION_MS)
      // GT: a replica whose batch is older never moves the last call back.
      pipeline.zadd(active, 'GT', p.lastSeen, agentId)
      if (p.lastSeen > newest) newest = p.lastSeen
    }
    pipeline.zremrangebyscore(active, '-inf', `(${newest - RETENTION_MS}`)
    try {
      const results = (await pipeline.exec()) ?? []
      const failed = results.find(([err]) => err)
      if (failed?.[0]) throw failed[0]
    } catch (error) {
      this.#onError(error instanceof Error ? error : new Error(String(error)))
    }
  }

  async windows(agentIds: readonly string[]): Promise<AgentWindow[]> {
    await this.flush()
    if (agentIds.length === 0) return []
    const active = `${this.#prefix}active`
    const pipeline = this.#redis.pipeline()
    for (const id of agentIds) {
      pipeline.lrange(this.#key('calls', id), 0, -1)
      pipeline.get(this.#key('count', id))
      pipeline.zscore(active, id)
    }
    const results = await this.#exec('activity read', pipeline)
    return agentIds.map((_, i) => {
      const codes = (results[3 * i] as string[] | null) ?? []
      const count = results[3 * i + 1] as string | null
      const score = results[3 * i + 2] as string | null
      return {
        codes: codes.join(''),
        calls: count === null ? 0 : Number(count),
        lastSeen: score === null ? undefined : Number(score),
      }
    })
  }

  async activeCount(since: number): Promise<number> {
    await this.flush()
    const [count] = await this.#exec(
      'activity count',
      this.#redis.pipeline().zcount(`${this.#prefix}active`, since, '+inf'),
    )
    return Number(count)
  }

  /**
   * Drop an agent's activity (it was deleted). Never fails the deletion: while
   * Redis is down the error goes to `onError`, and the keys expire on their own
   * (the overview lists existing agents only).
   */
  async forget(agentId: string): Promise<void> {
    this.#pending.delete(agentId)
    try {
      await this.#exec(
        'activity forget',
        this.#redis
          .pipeline()
          .del(this.#key('calls', agentId), this.#key('count', agentId))
          .zrem(`${this.#prefix}active`, agentId),
      )
    } catch (error) {
      this.#onError(error as Error)
    }
  }

  /** Stop the timer and write what is left. */
  async close(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.flush()
  }

  #key(kind: 'calls' | 'count', agentId: string): string {
    return `${this.#prefix}${kind}:${agentId}`
  }

  /** Run a read pipeline; any failure becomes a coded `GOV_ERR_KV_UNAVAILABLE` (503). */
  async #exec(operation: string, pipeline: ReturnType<Redis['pipeline']>): Promise<unknown[]> {
    let results: [Error | null, unknown][]
    try {
      results = (await pipeline.exec()) ?? []
    } catch (error) {
      throw unavailableError(operation, error)
    }
    return results.map(([err, value]) => {
      if (err) throw unavailableError(operation, err)
      return value
    })
  }
}
