import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { connectionHint } from './connection-hint.js'
import { withTimeout } from './with-timeout.js'

/** Where a Redis URL points, without its credentials. */
function describeRedisUrl(url: string): string {
  const u = new URL(url)
  return `${u.protocol}//${u.hostname}:${u.port || '6379'}`
}

/**
 * The key-value store: with `REDIS_URL`, connect and `PING` (nothing written);
 * without, say that sessions, taint, budgets and circuits live in this process.
 */
export async function checkRedis(input: {
  redisUrl: string | undefined
  production: boolean
  timeoutMs: number
}): Promise<CheckResult> {
  if (!input.redisUrl) {
    return result(
      'redis',
      'in-process',
      'ok',
      'no REDIS_URL: sessions, taint, budgets and circuit state live in this process; fine for one gateway, replicas would not share them',
    )
  }
  let where: string
  let secure: boolean
  let hasPassword: boolean
  try {
    const u = new URL(input.redisUrl)
    where = describeRedisUrl(input.redisUrl)
    secure = u.protocol === 'rediss:'
    hasPassword = u.password !== ''
  } catch {
    return result(
      'redis',
      'REDIS_URL',
      'fail',
      'REDIS_URL is not a URL (redis://:password@host:6379)',
      'GOV_ERR_CONFIG_INVALID',
    )
  }
  // Loaded only here: importing ioredis slows string scanning process-wide (see host/src/kv/create-kv.ts).
  const { Redis } = await import('ioredis')
  const redis = new Redis(input.redisUrl, {
    lazyConnect: true,
    connectTimeout: input.timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
  // ioredis reports the cause of a failed connection (TLS, refused) only as an event; the awaited
  // call then just says "Connection is closed", so the event's error is the one worth reporting.
  let cause: unknown
  redis.on('error', (err) => {
    cause ??= err
  })
  try {
    await withTimeout(redis.connect(), input.timeoutMs + 500, `redis at ${where}`)
    const pong = await withTimeout(redis.ping(), input.timeoutMs, `redis at ${where}`)
    const info = await withTimeout(redis.info('server'), input.timeoutMs, `redis at ${where}`)
    const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? 'unknown version'
    const detail = `${where}: ${pong}, Redis ${version}, TLS ${secure ? 'on' : 'off'}, password ${hasPassword ? 'set' : 'unset'}`
    if (input.production && (!secure || !hasPassword)) {
      return result(
        'redis',
        'REDIS_URL',
        'warn',
        `production-unsafe: ${detail}; use rediss:// with a password`,
        'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
      )
    }
    return result('redis', 'REDIS_URL', 'ok', detail)
  } catch (caught) {
    const err = cause ?? caught
    return result(
      'redis',
      'REDIS_URL',
      'fail',
      `cannot use redis at ${where}: ${messageOf(err)}; ${connectionHint(err, 'redis')}`,
      codeOf(err) ?? 'GOV_ERR_DOCTOR_UNREACHABLE',
    )
  } finally {
    redis.disconnect()
  }
}
