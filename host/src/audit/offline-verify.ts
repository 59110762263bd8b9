/**
 * Verify an export file (`GET /audit/export?format=jsonl`, or `gov audit
 * export`) without the gateway or its database: recompute the chain, check
 * every checkpoint's signature with the given JWKS and that the head it signed
 * is a record of the recomputed chain. A line without `type` is a record;
 * `{"type":"checkpoint",…}` lines are checkpoints; an `{"type":"error",…}`
 * line marks an incomplete export; other typed lines (`end`) are skipped.
 */
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { JSONWebKeySet } from 'jose'
import type { AuditCheckpoint, AuditRecord } from '../storage/store.js'
import { checkpointKeys } from './checkpoint.js'
import { type EvidenceResult, EvidenceVerifier } from './evidence-verify.js'

/** A line that is not one of the export's objects. */
export interface BadLine {
  readonly line: number
  readonly message: string
}

export interface OfflineResult extends EvidenceResult {
  /** The first line that could not be read; the file is then invalid. */
  readonly bad_line?: BadLine
  /** The export ended with an `error` line: it is incomplete. */
  readonly incomplete?: boolean
}

type Line =
  | { kind: 'record'; record: AuditRecord }
  | { kind: 'checkpoint'; checkpoint: AuditCheckpoint }
  | { kind: 'other'; type: string }

function readLine(text: string): Line {
  const value = JSON.parse(text) as Record<string, unknown>
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error('not a JSON object')
  if (value.type === 'checkpoint') return { kind: 'checkpoint', checkpoint: asCheckpoint(value.checkpoint) }
  if (value.type === undefined && 'seq' in value && 'hash' in value)
    return { kind: 'record', record: asRecord(value) }
  if (typeof value.type === 'string') return { kind: 'other', type: value.type }
  throw new Error('neither a record nor a checkpoint line')
}

function asRecord(value: unknown): AuditRecord {
  const r = value as Partial<AuditRecord> | null
  if (!r || typeof r !== 'object' || !Number.isSafeInteger(r.seq) || typeof r.hash !== 'string') {
    throw new Error('record lacks seq or hash')
  }
  if (typeof r.id !== 'string' || typeof r.prev_hash !== 'string')
    throw new Error('record lacks id or prev_hash')
  return r as AuditRecord
}

function asCheckpoint(value: unknown): AuditCheckpoint {
  const c = value as Partial<AuditCheckpoint> | null
  if (!c || typeof c !== 'object' || !Number.isSafeInteger(c.seq) || typeof c.jws !== 'string') {
    throw new Error('checkpoint lacks seq or jws')
  }
  return c as AuditCheckpoint
}

async function* lines(path: string): AsyncGenerator<{ n: number; text: string }> {
  const input = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })
  let n = 0
  for await (const text of input) {
    n += 1
    if (text.trim() !== '') yield { n, text }
  }
}

/** Merge JWKS documents (current and archived ones) into one key set. */
export function mergeJwks(documents: readonly JSONWebKeySet[]): JSONWebKeySet {
  const keys = documents.flatMap((d) => {
    if (!d || !Array.isArray(d.keys)) throw new TypeError('a JWKS is an object with a "keys" array')
    return d.keys
  })
  const seen = new Set<string>()
  const unique = keys.filter((k) => {
    if (!k.kid) return true
    if (seen.has(k.kid)) return false
    seen.add(k.kid)
    return true
  })
  return { keys: unique }
}

/**
 * Verify the export at `path` with `jwks`. Two passes over the file: the
 * checkpoints first (few), then the records, so a file of any size is checked
 * in constant memory. Throws only when the file cannot be read.
 */
export async function verifyExportFile(path: string, jwks: JSONWebKeySet): Promise<OfflineResult> {
  const verifier = new EvidenceVerifier({ keys: checkpointKeys(jwks) })
  let bad: BadLine | undefined
  let incomplete = false
  for await (const { n, text } of lines(path)) {
    let line: Line
    try {
      line = readLine(text)
    } catch (err) {
      bad ??= { line: n, message: (err as Error).message }
      continue
    }
    if (line.kind === 'checkpoint') await verifier.addCheckpoint(line.checkpoint)
    if (line.kind === 'other' && line.type === 'error') incomplete = true
  }
  for await (const { text } of lines(path)) {
    let line: Line
    try {
      line = readLine(text)
    } catch {
      continue
    }
    if (line.kind === 'record') verifier.add(line.record)
  }
  const result = verifier.result()
  return {
    ...result,
    valid: result.valid && bad === undefined && !incomplete,
    ...(bad ? { bad_line: bad } : {}),
    ...(incomplete ? { incomplete } : {}),
  }
}
