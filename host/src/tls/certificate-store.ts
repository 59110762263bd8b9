import { createHash, createPrivateKey, X509Certificate } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { SecureContextOptions } from 'node:tls'
import { GovError } from '@gov/core'
import type { Logger } from '../logging.js'
import { TlsErrorCodes, type TlsSettings } from './tls-settings.js'

/** What the server needs to (re)build its secure context. */
export interface CertificateMaterial {
  readonly options: SecureContextOptions
  /** SHA-256 of the files' bytes, to tell whether anything changed. */
  readonly digest: string
  /** Expiry of the leaf certificate, epoch ms. */
  readonly notAfter: number
}

/** Something that can take a new secure context without restarting (an https or tls server). */
export interface SecureContextTarget {
  setSecureContext(options: SecureContextOptions): void
}

function fileError(what: string, path: string, reason: string): GovError {
  return new GovError(TlsErrorCodes.FILE_INVALID, `${what} ${path}: ${reason}`, 500)
}

async function read(what: string, path: string): Promise<Buffer> {
  try {
    return await readFile(path)
  } catch (err) {
    throw fileError(what, path, `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}

/**
 * Read and check the certificate, key and optional client CA. The key must
 * belong to the certificate: during a rotation the two files are rewritten one
 * after the other, and serving a mismatched pair would break every handshake.
 */
export async function loadCertificates(settings: TlsSettings): Promise<CertificateMaterial> {
  const [cert, key, ca] = await Promise.all([
    read('GOV_TLS_CERT_FILE', settings.certFile),
    read('GOV_TLS_KEY_FILE', settings.keyFile),
    settings.clientCaFile ? read('GOV_TLS_CLIENT_CA_FILE', settings.clientCaFile) : undefined,
  ])
  let leaf: X509Certificate
  try {
    leaf = new X509Certificate(cert)
  } catch {
    throw fileError('GOV_TLS_CERT_FILE', settings.certFile, 'holds no PEM certificate')
  }
  try {
    if (!leaf.checkPrivateKey(createPrivateKey(key))) {
      throw fileError('GOV_TLS_KEY_FILE', settings.keyFile, 'does not belong to the certificate')
    }
  } catch (err) {
    if (err instanceof GovError) throw err
    throw fileError('GOV_TLS_KEY_FILE', settings.keyFile, 'holds no usable private key')
  }
  const digest = createHash('sha256')
  for (const part of [cert, key, ca ?? Buffer.alloc(0)]) digest.update(part).update('\0')
  return {
    options: { cert, key, ...(ca ? { ca } : {}) },
    digest: digest.digest('hex'),
    notAfter: new Date(leaf.validTo).getTime(),
  }
}

/**
 * Keeps a server's certificate current: the files are re-read every
 * `reloadMs` and, when their bytes changed and the new pair is consistent,
 * handed to `setSecureContext` — new connections get the new certificate,
 * open ones keep theirs, nothing restarts. Polling rather than `fs.watch`:
 * mounted secrets rotate by swapping symlinks, which watchers miss or report
 * on the wrong path, and an hourly rotation does not need sub-second notice.
 * A half-written rotation (new certificate, old key) is logged and retried at
 * the next tick while the previous certificate keeps serving.
 */
export class CertificateStore {
  #current: CertificateMaterial
  #timer: NodeJS.Timeout | undefined
  #target: SecureContextTarget | undefined
  #checking: Promise<boolean> | undefined
  /** Successful reloads since start. */
  reloads = 0

  private constructor(
    private readonly settings: TlsSettings,
    private readonly logger: Logger,
    initial: CertificateMaterial,
  ) {
    this.#current = initial
  }

  /** Load the files once (throws `GOV_ERR_TLS_FILE_INVALID` when they cannot serve). */
  static async open(settings: TlsSettings, logger: Logger): Promise<CertificateStore> {
    return new CertificateStore(settings, logger, await loadCertificates(settings))
  }

  /** The material in use. */
  get current(): CertificateMaterial {
    return this.#current
  }

  /** Options for `https.createServer`: the certificate, and client verification when a client CA is set. */
  serverOptions(): SecureContextOptions & { requestCert: boolean; rejectUnauthorized: boolean } {
    const mutual = this.settings.clientCaFile !== undefined
    return { ...this.#current.options, requestCert: mutual, rejectUnauthorized: mutual }
  }

  /** Start re-reading the files for `target`. */
  watch(target: SecureContextTarget): void {
    this.#target = target
    clearInterval(this.#timer)
    this.#timer = setInterval(() => void this.check(), this.settings.reloadMs)
    this.#timer.unref()
  }

  /** Re-read the files now; true when a new certificate was installed. */
  check(): Promise<boolean> {
    this.#checking ??= this.#check().finally(() => {
      this.#checking = undefined
    })
    return this.#checking
  }

  close(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  async #check(): Promise<boolean> {
    let next: CertificateMaterial
    try {
      next = await loadCertificates(this.settings)
    } catch (err) {
      this.logger.warn(
        { code: (err as GovError).code, err: (err as Error).message },
        'tls certificate files unusable; still serving the previous certificate',
      )
      return false
    }
    if (next.digest === this.#current.digest) return false
    this.#target?.setSecureContext(next.options)
    this.#current = next
    this.reloads++
    this.logger.info({ notAfter: new Date(next.notAfter).toISOString() }, 'tls certificate reloaded')
    return true
  }
}
