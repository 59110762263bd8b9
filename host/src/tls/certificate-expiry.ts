import { X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'

/** What a PEM certificate file says about its first certificate's lifetime. */
export interface CertificateExpiry {
  subject: string
  /** Expiry, epoch ms. */
  notAfter: number
  /** Whole days left at `now` (negative once expired). */
  daysLeft: number
}

const DAY_MS = 86_400_000

/**
 * Read the first certificate of a PEM file and say when it expires. Shared by
 * the health monitor and `gov doctor`, so both judge a CA the same way.
 * Rejects with the file system's error, or a TypeError when it is not a certificate.
 */
export async function readCertificateExpiry(path: string, now = Date.now()): Promise<CertificateExpiry> {
  const cert = new X509Certificate(await readFile(path))
  const notAfter = new Date(cert.validTo).getTime()
  return {
    subject: cert.subject.replaceAll('\n', ', '),
    notAfter,
    daysLeft: Math.floor((notAfter - now) / DAY_MS),
  }
}
