import type { ConnectionOptions } from 'node:tls'
import { describeRedisTls, type RedisTlsSettings, readRedisTlsSettings, redisTlsOptions } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { connectionHint } from './connection-hint.js'
import { withTimeout } from './with-timeout.js'

/** Where a Redis URL points, without its credentials. */
function describeRedisUrl(url: string): string {
  const u = new URL(url)
  return `${u.protocol}//${u.hostname}:${u.port || '6379'}`
}

/** TLS errors a client certificate or CA setting explains, and what to change. */
function tlsHint(err: unknown, tls: RedisTlsSettings | undefined): string | undefined {
  const code = codeOf(err) ?? ''
  const message = messageOf(err)
  if (
    /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT/.test(
      code,
    )
  ) {
    return tls?.caFile
      ? `the server certificate is not signed by GOV_REDIS_TLS_CA_FILE (${tls.caFile}): point it at the CA that issued Redis's certificate`
      : 'the server certificate is not trusted: set NODE_EXTRA_CA_CERTS or GOV_REDIS_TLS_CA_FILE to the internal CA file'
  }
  if (/CERTIFICATE_REQUIRED|BAD_CERTIFICATE|UNKNOWN_CA|certificate required/i.test(`${code} ${message}`)) {
    return tls?.certFile
      ? `Redis refused the client certificate GOV_REDIS_TLS_CERT_FILE (${tls.certFile}): use one signed by the CA Redis trusts (tls-ca-cert-file)`
      : 'Redis requires a client certificate: set GOV_REDIS_TLS_CERT_FILE and GOV_REDIS_TLS_KEY_FILE'
  }
  return undefined
}

/**
 * The key-value store: with `REDIS_URL`, connect and `PING` (nothing written);
 * without, say that sessions, taint, budgets and circuits live in this process.
 * Uses the gateway's `GOV_REDIS_TLS_*` files (CA, client certificate) from `env`.
 */
export async function checkRedis(input: {
  redisUrl: string | undefined
  production: boolean
  timeoutMs: number
  /** Where the `GOV_REDIS_TLS_*` settings are read; default `process.env`. */
  env?: NodeJS.ProcessEnv
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
  let tlsSettings: RedisTlsSettings | undefined
  let tls: ConnectionOptions | undefined
  try {
    tlsSettings = readRedisTlsSettings(input.env ?? process.env)
    if (tlsSettings && !secure) {
      return result(
        'redis',
        'GOV_REDIS_TLS_*',
        'fail',
        'GOV_REDIS_TLS_* is set but REDIS_URL is not rediss://: use rediss://… or unset the GOV_REDIS_TLS_* files',
        'GOV_ERR_TLS_CONFIG_INVALID',
      )
    }
    tls = tlsSettings ? redisTlsOptions(tlsSettings) : undefined
  } catch (err) {
    return result('redis', 'GOV_REDIS_TLS_*', 'fail', messageOf(err), codeOf(err))
  }
  const redis = await connectOnce(input.redisUrl, input.timeoutMs, tls)
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
    const open = await acceptsAnonymous(input.redisUrl, input.timeoutMs, tls)
    const auth = open ? 'accepts connections without a password' : 'password required'
    const files = secure ? ` (TLS with ${describeRedisTls(tlsSettings)})` : ''
    const detail = `${where}: ${pong}, Redis ${version}, TLS ${secure ? 'on' : 'off'}, ${auth}${files}`
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
      `cannot use redis at ${where}: ${messageOf(err)}; ${tlsHint(err, tlsSettings) ?? connectionHint(err, 'redis')}`,
      codeOf(err) ?? 'GOV_ERR_DOCTOR_UNREACHABLE',
    )
  } finally {
    redis.disconnect()
  }
}

/** A client that connects once (no retries, no queue), so a probe fails fast instead of reconnecting. */
async function connectOnce(url: string, timeoutMs: number, tls?: ConnectionOptions) {
  // Loaded only here: importing ioredis slows string scanning process-wide (see host/src/kv/create-kv.ts).
  const { Redis } = await import('ioredis')
  return new Redis(url, {
    ...(tls ? { tls } : {}),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  })
}

/** Does the server answer PING for a client that sent no password? */
async function acceptsAnonymous(url: string, timeoutMs: number, tls?: ConnectionOptions): Promise<boolean> {
  const anonymous = new URL(url)
  anonymous.username = ''
  anonymous.password = ''
  const probe = await connectOnce(anonymous.toString(), timeoutMs, tls)
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
