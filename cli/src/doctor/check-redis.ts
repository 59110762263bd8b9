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
  const redis = await connectOnce(input.redisUrl, input.timeoutMs)
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
    // A password in the URL proves nothing when Redis requires none (ioredis then only warns): ask without one.
    const open = await acceptsAnonymous(input.redisUrl, input.timeoutMs)
    const auth = open ? 'accepts connections without a password' : 'password required'
    const detail = `${where}: ${pong}, Redis ${version}, TLS ${secure ? 'on' : 'off'}, ${auth}`
    if (input.production && (!secure || !hasPassword || open)) {
      return result(
        'redis',
        'REDIS_URL',
        'warn',
        `production-unsafe: ${detail}; serve Redis with TLS only and requirepass, and use rediss://:<password>@…`,
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

/** A client that connects once (no retries, no queue), so a probe fails fast instead of reconnecting. */
async function connectOnce(url: string, timeoutMs: number) {
  // Loaded only here: importing ioredis slows string scanning process-wide (see host/src/kv/create-kv.ts).
  const { Redis } = await import('ioredis')
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
}

/** Does the server answer PING for a client that sent no password? */
async function acceptsAnonymous(url: string, timeoutMs: number): Promise<boolean> {
  const anonymous = new URL(url)
  anonymous.username = ''
  anonymous.password = ''
  const probe = await connectOnce(anonymous.toString(), timeoutMs)
  probe.on('error', () => {})
  try {
    await withTimeout(probe.connect(), timeoutMs + 500, 'redis without a password')
    await withTimeout(probe.ping(), timeoutMs, 'redis without a password')
    return true
  } catch {
    // NOAUTH: the server requires a password.
    return false
  } finally {
    probe.disconnect()
  }
}
