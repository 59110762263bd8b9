import { loadCertificates, readCertificateExpiry, readMonitorSettings, readTlsSettings } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'

/** The spec's alert threshold for the internal CA. */
const CA_MIN_DAYS = 30

function humanLeft(ms: number): string {
  const minutes = Math.floor(ms / 60_000)
  if (minutes < 120) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  return hours < 72 ? `${hours} h` : `${Math.floor(hours / 24)} days`
}

/**
 * Certificates gov itself uses: the HTTPS certificate and key
 * (`GOV_TLS_CERT_FILE`/`GOV_TLS_KEY_FILE`, loaded with the gateway's own
 * loader: readable, a matching pair, not expired) and the internal CA
 * (`GOV_INTERNAL_CA_FILE`, else `GOV_TLS_CLIENT_CA_FILE`, else `VAULT_CACERT`): under 30 days left
 * warns, expired fails. Serving certificates live an hour and are rotated, so
 * their short lifetime is normal; only expiry is a problem.
 */
export async function checkCertificates(
  env: NodeJS.ProcessEnv,
  production: boolean,
  now = Date.now(),
): Promise<CheckResult[]> {
  const out: CheckResult[] = []
  let tls: ReturnType<typeof readTlsSettings>
  try {
    tls = readTlsSettings(env)
  } catch (err) {
    return [result('tls', 'GOV_TLS_*', 'fail', messageOf(err), codeOf(err))]
  }
  if (!tls) {
    out.push(
      production
        ? result(
            'tls',
            'GOV_TLS_CERT_FILE',
            'warn',
            'production-unsafe: gov serves plain HTTP; set GOV_TLS_CERT_FILE and GOV_TLS_KEY_FILE to certificates of the internal CA (they are re-read when rotated)',
            'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
          )
        : result(
            'tls',
            'GOV_TLS_CERT_FILE',
            'ok',
            'unset: gov serves plain HTTP (fine behind a TLS-terminating proxy on the same host)',
          ),
    )
  } else {
    try {
      const material = await loadCertificates(tls)
      const left = material.notAfter - now
      out.push(
        left <= 0
          ? result(
              'tls',
              'GOV_TLS_CERT_FILE',
              'fail',
              `${tls.certFile} expired ${humanLeft(-left)} ago: the rotation is not writing new files`,
              'GOV_ERR_TLS_CERT_EXPIRED',
            )
          : result(
              'tls',
              'GOV_TLS_CERT_FILE',
              'ok',
              `${tls.certFile} and its key match; expires in ${humanLeft(left)}${tls.clientCaFile ? '; clients must present a certificate of GOV_TLS_CLIENT_CA_FILE' : ''}`,
            ),
      )
    } catch (err) {
      out.push(
        result('tls', 'GOV_TLS_CERT_FILE', 'fail', `${messageOf(err)}; gov refuses to start`, codeOf(err)),
      )
    }
  }

  // The same file the health monitor watches (a bad GOV_MONITOR_* value is the disk check's to report).
  let caFile: string | undefined
  try {
    caFile = readMonitorSettings(env).caFile
  } catch {
    caFile = env.GOV_INTERNAL_CA_FILE?.trim() || undefined
  }
  if (!caFile) return out
  try {
    const ca = await readCertificateExpiry(caFile, now)
    const when = new Date(ca.notAfter).toISOString().slice(0, 10)
    if (ca.daysLeft < 0) {
      out.push(
        result(
          'tls',
          'internal CA',
          'fail',
          `${caFile} (${ca.subject}) expired on ${when}: nothing it signed is trusted; issue a new CA (deploy/ca/make-ca.sh) and re-issue every certificate`,
          'GOV_ERR_TLS_CA_EXPIRED',
        ),
      )
    } else if (ca.daysLeft < CA_MIN_DAYS) {
      out.push(
        result(
          'tls',
          'internal CA',
          'warn',
          `${caFile} (${ca.subject}) expires in ${ca.daysLeft} days (${when}); create the next CA now and distribute it alongside the current one`,
          'GOV_ERR_TLS_CA_EXPIRING',
        ),
      )
    } else {
      out.push(
        result(
          'tls',
          'internal CA',
          'ok',
          `${caFile} (${ca.subject}) expires in ${ca.daysLeft} days (${when})`,
        ),
      )
    }
  } catch (err) {
    out.push(
      result(
        'tls',
        'internal CA',
        'fail',
        `${caFile} is not a readable PEM certificate: ${messageOf(err)}`,
        codeOf(err) ?? 'GOV_ERR_TLS_FILE_INVALID',
      ),
    )
  }
  return out
}
