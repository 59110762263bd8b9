/**
 * Certificates made at test time with the `openssl` command (never committed):
 * an internal CA and leaf certificates it signs for 127.0.0.1 / localhost.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A folder of PEM files made by {@link makeTestCa}. */
export interface TestCa {
  dir: string
  caCert: string
  caKey: string
  /** Issue a leaf certificate signed by this CA; returns its cert and key paths. */
  issue(name: string, options?: { days?: number; clientAuth?: boolean }): { cert: string; key: string }
  /** The PEM text of a file in the folder. */
  read(path: string): string
  close(): void
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

/** Make an EC P-256 CA valid for `days` (default 365) in a temporary folder. */
export function makeTestCa(options: { days?: number; name?: string } = {}): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'gov-test-ca-'))
  const caKey = join(dir, 'ca.key')
  const caCert = join(dir, 'ca.crt')
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', caKey], dir)
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      caKey,
      '-sha256',
      '-days',
      String(options.days ?? 365),
      '-subj',
      `/CN=${options.name ?? 'gov test CA'}`,
      '-out',
      caCert,
    ],
    dir,
  )
  let serial = 1
  return {
    dir,
    caCert,
    caKey,
    issue(name, opts = {}) {
      const key = join(dir, `${name}.key`)
      const csr = join(dir, `${name}.csr`)
      const cert = join(dir, `${name}.crt`)
      const ext = join(dir, `${name}.ext`)
      writeFileSync(
        ext,
        [
          'basicConstraints=CA:FALSE',
          `extendedKeyUsage=${opts.clientAuth ? 'clientAuth' : 'serverAuth'}`,
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
          '',
        ].join('\n'),
      )
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], dir)
      openssl(['req', '-new', '-key', key, '-subj', `/CN=${name}`, '-out', csr], dir)
      openssl(
        [
          'x509',
          '-req',
          '-in',
          csr,
          '-CA',
          caCert,
          '-CAkey',
          caKey,
          '-set_serial',
          String(serial++),
          '-days',
          String(opts.days ?? 30),
          '-sha256',
          '-extfile',
          ext,
          '-out',
          cert,
        ],
        dir,
      )
      return { cert, key }
    },
    read(path) {
      return readFileSync(path, 'utf8')
    },
    close() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
