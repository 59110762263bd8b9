import { readFile } from 'node:fs/promises'
import { type EvidenceResult, mergeJwks, type OfflineResult, verifyExportFile } from '@gov/host'
import { Command, Option } from 'clipanion'
import type { AdminClient } from '../../admin/admin-client.js'
import { AdminCommand } from '../../admin/admin-command.js'

/** Exit codes: intact, broken, not checked. */
const INTACT = 0
const BROKEN = 3
const NOT_CHECKED = 1

/** `gov audit verify [--offline FILE --jwks FILE|URL…]` */
export class AuditVerifyCommand extends AdminCommand {
  static override paths = [['audit', 'verify']]
  static override usage = Command.Usage({
    category: 'Admin',
    description: 'verify the audit hash chain and its signed checkpoints',
    details:
      'Online: calls `GET /audit/verify`; the gateway re-hashes every record in chain order and checks every signed checkpoint against its JWKS. With `--offline FILE`: no gateway and no database; reads an export (`gov audit export`), recomputes the chain, checks each checkpoint signature with the keys of `--jwks` (a file or an http(s) URL; repeat it to add archived JWKS documents from before key rotations) and that each signed head is a record of the recomputed chain. Prints the record count and head, or the first broken record or checkpoint. Exit code 0 when intact, 3 when broken, 1 when it could not be checked.',
    examples: [
      ['Verify online and keep the head', '$0 audit verify --json > audit-head.json'],
      ['Verify an export offline', '$0 audit verify --offline audit.jsonl --jwks jwks.json'],
    ],
  })
  offline = Option.String('--offline', { description: 'Verify this export file without the gateway' })
  jwks = Option.Array('--jwks', { description: 'JWKS file or URL for --offline (repeatable)' })

  override async execute(): Promise<number> {
    if (this.offline === undefined) {
      if (this.jwks) return this.#usage('--jwks is for --offline')
      return super.execute()
    }
    if (!this.jwks || this.jwks.length === 0) {
      return this.#usage('--offline needs --jwks FILE|URL (the gateway publishes /.well-known/jwks.json)')
    }
    let result: OfflineResult
    try {
      const documents = await Promise.all(this.jwks.map((source) => readJwks(source)))
      result = await verifyExportFile(this.offline, mergeJwks(documents))
    } catch (err) {
      this.context.stderr.write(`gov: audit_not_checked: ${(err as Error).message}\n`)
      return NOT_CHECKED
    }
    this.print(result, () => describe(result))
    if (result.valid && result.checkpoints.checked === 0) {
      this.context.stderr.write(
        'warning: the export holds no signed checkpoint; the chain alone cannot show a rewrite of the whole trail\n',
      )
    }
    return result.valid ? INTACT : BROKEN
  }

  async run(client: AdminClient): Promise<number> {
    const { body } = await client.request('GET', '/audit/verify')
    this.print(body, () => describe(body))
    return body.valid ? INTACT : BROKEN
  }

  #usage(message: string): number {
    this.context.stderr.write(`gov: usage: ${message}\n`)
    return NOT_CHECKED
  }
}

async function readJwks(source: string): Promise<{ keys: never[] }> {
  let text: string
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(10_000) }).catch((err: Error) => {
      throw new Error(`cannot fetch the JWKS at ${source}: ${err.message}`)
    })
    if (!res.ok) throw new Error(`the JWKS at ${source} answered HTTP ${res.status}`)
    text = await res.text()
  } else {
    text = await readFile(source, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new Error(`cannot read the JWKS file ${source}: ${err.code ?? err.message}`)
    })
  }
  let jwks: unknown
  try {
    jwks = JSON.parse(text)
  } catch {
    throw new Error(`${source} is not JSON`)
  }
  if (!jwks || typeof jwks !== 'object' || !Array.isArray((jwks as { keys?: unknown }).keys)) {
    throw new Error(`${source} is not a JWKS (an object with a "keys" array)`)
  }
  return jwks as { keys: never[] }
}

/** One paragraph on what was checked, for people. */
function describe(
  r: Partial<OfflineResult> & Partial<EvidenceResult> & { valid: boolean; records: number },
): string {
  const lines: string[] = []
  if (r.bad_line)
    lines.push(`export BROKEN: line ${r.bad_line.line} is not an export line (${r.bad_line.message})`)
  if (r.incomplete)
    lines.push('export INCOMPLETE: it ends with an error line; export again from the last record')
  if (r.first_broken) {
    const b = r.first_broken
    lines.push(`audit chain BROKEN at record seq ${b.seq} (id ${b.id}): ${b.reason}`)
  }
  const failed = r.checkpoints?.first_failed
  if (failed) lines.push(`checkpoint at seq ${failed.seq} FAILED: ${failed.reason}: ${failed.message}`)
  const cp = r.checkpoints
  const head = r.head ? `; head seq ${r.head.seq} hash ${r.head.hash}` : ''
  const from = r.starts_after === undefined ? '' : ` after seq ${r.starts_after}`
  const summary = `${r.records} records checked${from}${head}`
  if (r.valid) {
    lines.push(`audit chain intact: ${summary}`)
    if (cp) {
      const last = cp.last_verified_seq === null ? '' : `, newest at seq ${cp.last_verified_seq}`
      const retired = cp.key_retired
        ? `, ${cp.key_retired} with a key no longer published (head matched)`
        : ''
      lines.push(
        `checkpoints: ${cp.verified} signed and matching the chain${last}${retired}; ${r.unsigned_records ?? 0} records after the newest are covered by the chain only`,
      )
    }
  } else {
    lines.push(`(${summary})`)
  }
  return `${lines.join('\n')}\n`
}
