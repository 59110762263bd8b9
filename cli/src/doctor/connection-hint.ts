/**
 * What to do about a failed connection to Redis or PostgreSQL, from the
 * error's code or message: the raw error says what happened, the hint says
 * which setting to change.
 */
export function connectionHint(err: unknown, what: 'redis' | 'postgres'): string {
  const e = err as { code?: unknown; message?: unknown }
  const code = typeof e?.code === 'string' ? e.code : ''
  const message = typeof e?.message === 'string' ? e.message : ''
  const url = what === 'redis' ? 'REDIS_URL' : 'DATABASE_URL'
  if (/WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message) || code === '28P01')
    return `the password in ${url} is wrong`
  if (
    code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT'
  )
    return what === 'postgres'
      ? 'the server certificate is not trusted: add sslrootcert=<internal CA file> to DATABASE_URL (or NODE_EXTRA_CA_CERTS)'
      : 'the server certificate is not trusted: set NODE_EXTRA_CA_CERTS to the internal CA file'
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the certificate does not name this host: use the host name it was issued for in ${url}`
  if (/does not support SSL|SSL off|no pg_hba.conf entry.*no encryption/i.test(message))
    return what === 'postgres'
      ? 'TLS and the server disagree: enable ssl on the server, or match sslmode to what pg_hba.conf allows'
      : 'use rediss:// only when Redis listens with TLS'
  if (code === 'ECONNREFUSED')
    return `nothing listens there: is ${what === 'redis' ? 'Redis' : 'PostgreSQL'} running, and is the port in ${url} right?`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `the host name in ${url} does not resolve from here`
  if (code === '3D000') return `the database in ${url} does not exist: create it`
  return `check ${url}`
}
