/**
 * The audit trail service: appends call and management records to the one
 * hash chain, lists them and verifies the chain.
 *
 * Appends are group-committed: while one batch is being written, every append
 * that arrives waits in the next batch, and that whole batch goes to the store
 * in one transaction (one lock, one head read, one multi-row insert). A lone
 * append is written at once; under load, batches grow by themselves, so
 * throughput holds without adding latency to an idle gateway.
 */
import { randomUUID } from 'node:crypto'
import type { CallSummary } from '../gateway/gateway-handler.js'
import type { Logger } from '../logging.js'
import type { AuditQuery, AuditRecord, Store } from '../storage/store.js'
import { type AdminChange, adminEntry } from './admin-entry.js'
import { auditUnavailableError } from './audit-errors.js'
import { callEntry } from './call-entry.js'
import { type AuditEntry, sealEach, sealRecords } from './hash-chain.js'
import { ChainVerifier, type VerifyResult } from './verify-chain.js'

/** Options of {@link AuditTrail}. */
export interface AuditTrailOptions {
  logger?: Logger
  /** Most records written in one transaction; default 500. */
  maxBatch?: number
  /**
   * Most appends waiting for the store; past it an append fails at once with
   * `audit_unavailable` rather than queueing without bound while the database
   * is down or slow. Default 10 000.
   */
  maxPending?: number
  /**
   * Deadline of one append, from the call to commit; past it the append fails
   * with 503 `audit_unavailable` (and is not written unless its transaction had
   * begun). Default: the store's own deadline (`GOV_DB_STATEMENT_TIMEOUT_MS`), else 5000 ms.
   */
  appendTimeoutMs?: number
  /**
   * {@link AuditTrail.assertWritable} refuses while a write has been in flight
   * longer than this (a stalled database); default 1000 ms or the append deadline if shorter.
   */
  stallMs?: number
  /** {@link AuditTrail.assertWritable} refuses for this long after a failed write; default 1000 ms. */
  failureHoldMs?: number
  /** Records read per page when verifying; default 1000. */
  verifyPageSize?: number
  /** The clock of record times. */
  now?: () => Date
}

interface Pending {
  readonly entry: AuditEntry
  readonly resolve: (record: AuditRecord) => void
  readonly reject: (error: Error) => void
  /** `performance.now()` past which the append fails with `audit_unavailable`. */
  readonly deadline: number
  /** Answered already (committed, failed, or by the deadline): a later commit changes nothing for the caller. */
  settled: boolean
}

/** Appends to, lists and verifies the audit chain of one store. */
export class AuditTrail {
  readonly #store: Store
  readonly #logger: Logger | undefined
  readonly #maxBatch: number
  readonly #maxPending: number
  readonly #appendTimeoutMs: number
  readonly #stallMs: number
  readonly #failureHoldMs: number
  readonly #pageSize: number
  readonly #now: () => Date
  #pending: Pending[] = []
  /**
   * Every append not yet answered, oldest first (from `#watchHead`): their
   * deadlines come in the same order, so one timer, armed for the oldest,
   * watches them all (a timer per append cost a timer list made and dropped
   * per call). Answered appends leave from the front as they are answered.
   */
  #watch: Pending[] = []
  #watchHead = 0
  /** The deadline timer: ref'd while an append waits, unref'd (left to fire and stop) when none does. */
  #deadlineTimer: NodeJS.Timeout | undefined
  #listeners: ((records: readonly AuditRecord[]) => void)[] = []
  #writing = false
  /** What {@link idle} handed out while a drain runs, made only when asked for (not a promise per call). */
  #idle: Promise<void> | undefined
  #settleIdle: (() => void) | undefined
  /** `performance.now()` when the batch in flight went to the store. */
  #batchStartedAt: number | undefined
  /** `performance.now()` of the last failed write, cleared by a successful one. */
  #failedAt: number | undefined

  constructor(store: Store, options: AuditTrailOptions = {}) {
    this.#store = store
    this.#logger = options.logger
    this.#maxBatch = options.maxBatch ?? 500
    this.#maxPending = options.maxPending ?? 10_000
    this.#appendTimeoutMs = options.appendTimeoutMs ?? store.deadlineMs ?? 5000
    this.#stallMs = options.stallMs ?? Math.min(1000, this.#appendTimeoutMs)
    this.#failureHoldMs = options.failureHoldMs ?? 1000
    this.#pageSize = options.verifyPageSize ?? 1000
    this.#now = options.now ?? (() => new Date())
  }

  /**
   * Throw 503 `audit_unavailable` when an append would most likely fail now:
   * the backlog is full, a write has been in flight longer than `stallMs`
   * (the database stalls), or a write failed within the last `failureHoldMs`.
   * Synchronous and cheap: the gateway calls it before paying the provider for
   * an answer it could not release. A pass is no promise; the append still decides.
   */
  assertWritable(): void {
    if (!this.writable()) throw auditUnavailableError()
  }

  /** What {@link assertWritable} checks, as a boolean. */
  writable(): boolean {
    if (this.#pending.length >= this.#maxPending) return false
    const now = performance.now()
    if (this.#batchStartedAt !== undefined && now - this.#batchStartedAt > this.#stallMs) return false
    return this.#failedAt === undefined || now - this.#failedAt > this.#failureHoldMs
  }

  /** Record a finished call; resolves once the record is durable. Rejects with `audit_unavailable`. */
  recordCall(summary: CallSummary): Promise<AuditRecord> {
    return this.append(callEntry(summary, randomUUID(), this.#now()))
  }

  /** Record a management change that succeeded; resolves once durable. Rejects with `audit_unavailable`. */
  recordAdmin(change: AdminChange): Promise<AuditRecord> {
    return this.append(adminEntry(change, randomUUID(), this.#now()))
  }

  /**
   * Make a change and record it in one store transaction: the record joins the
   * chain only if the change commits, and the change commits only with its
   * record. Errors of `work` pass through unchanged; a record that cannot be
   * written undoes the change and rejects with 503 `audit_unavailable`.
   */
  async commit<T>(work: (store: Store) => Promise<T>, describe: (value: T) => AdminChange): Promise<T> {
    let written: AuditRecord[] = []
    const value = await this.#store.transaction(async (tx) => {
      const value = await work(tx)
      const entry = adminEntry(describe(value), randomUUID(), this.#now())
      try {
        written = await tx.appendAudit((head) => sealRecords(head, [entry]))
      } catch (err) {
        this.#failedAt = performance.now()
        this.#logger?.error({ err, action: entry.action }, 'audit append failed; the change is undone')
        throw auditUnavailableError()
      }
      this.#failedAt = undefined
      return value
    })
    // Durable only now, with the transaction committed.
    this.#publish(written)
    return value
  }

  /**
   * Call `listener` with every batch of records this trail wrote, once they are
   * committed (the SIEM sinks). It runs synchronously after the commit: it must
   * be quick and must not throw (a throw is logged and ignored).
   */
  onCommitted(listener: (records: readonly AuditRecord[]) => void): () => void {
    this.#listeners.push(listener)
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener)
    }
  }

  #publish(records: readonly AuditRecord[]): void {
    if (records.length === 0) return
    for (const listener of this.#listeners) {
      try {
        listener(records)
      } catch (err) {
        this.#logger?.error({ err }, 'audit listener failed')
      }
    }
  }

  /** Append one entry to the chain; resolves with its sealed record once it is committed. */
  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.#pending.length >= this.#maxPending) {
      this.#logger?.error({ pending: this.#pending.length }, 'audit trail backlog full')
      return Promise.reject(auditUnavailableError())
    }
    return new Promise<AuditRecord>((resolve, reject) => {
      const deadline = performance.now() + this.#appendTimeoutMs
      const pending: Pending = { entry, resolve, reject, deadline, settled: false }
      this.#watch.push(pending)
      if (this.#deadlineTimer === undefined) this.#armDeadline(this.#appendTimeoutMs)
      else this.#deadlineTimer.ref()
      this.#pending.push(pending)
      if (!this.#writing) {
        this.#writing = true
        void this.#drain()
      }
    })
  }

  /** Resolves when no append is waiting or being written (call before closing the store). */
  idle(): Promise<void> {
    if (!this.#writing) return Promise.resolve()
    this.#idle ??= new Promise((settle) => {
      this.#settleIdle = settle
    })
    return this.#idle
  }

  /** Records matching `query`, by `seq`. */
  list(query: AuditQuery): Promise<AuditRecord[]> {
    return this.#store.listAudit(query)
  }

  /** Re-check the whole chain, page by page, from `seq` 1 (or from the oldest record the store kept). */
  async verify(): Promise<VerifyResult> {
    const anchor = this.#store.auditAnchor?.()
    const verifier = new ChainVerifier(anchor)
    let afterSeq: number | undefined = anchor?.seq
    for (;;) {
      const page = await this.#store.listAudit({
        order: 'asc',
        limit: this.#pageSize,
        ...(afterSeq === undefined ? {} : { afterSeq }),
      })
      for (const record of page) verifier.add(record)
      if (page.length < this.#pageSize) return verifier.result()
      afterSeq = page.at(-1)!.seq
    }
  }

  #armDeadline(ms: number): void {
    this.#deadlineTimer = setTimeout(() => this.#checkDeadlines(), Math.max(1, Math.ceil(ms)))
  }

  /** The oldest waiting append's deadline came: fail every append whose deadline passed, re-arm for the next. */
  #checkDeadlines(): void {
    this.#deadlineTimer = undefined
    const now = performance.now()
    for (;;) {
      this.#dropAnswered()
      const oldest = this.#watch[this.#watchHead]
      if (oldest === undefined) return
      if (oldest.deadline > now) {
        this.#armDeadline(oldest.deadline - now)
        return
      }
      this.#expire(oldest)
    }
  }

  /** Drop answered appends from the front of `#watch`; with none left waiting, the timer no longer holds the process. */
  #dropAnswered(): void {
    const watch = this.#watch
    let head = this.#watchHead
    while (head < watch.length && (watch[head] as Pending).settled) head++
    if (head === watch.length) {
      watch.length = 0
      this.#watchHead = 0
      this.#deadlineTimer?.unref()
      return
    }
    if (head > 1024 && head * 2 > watch.length) {
      watch.splice(0, head)
      head = 0
    }
    this.#watchHead = head
  }

  /** The deadline passed: answer 503 now; a record still waiting is never written. */
  #expire(pending: Pending): void {
    if (pending.settled) return
    pending.settled = true
    const waiting = this.#pending.indexOf(pending)
    if (waiting >= 0) this.#pending.splice(waiting, 1)
    this.#failedAt = performance.now()
    this.#logger?.error(
      { action: pending.entry.action, deadlineMs: this.#appendTimeoutMs, inFlight: waiting < 0 },
      'audit append missed its deadline',
    )
    pending.reject(auditUnavailableError())
  }

  /** The record is committed: answer its caller (unless the deadline answered it already). */
  #resolve(pending: Pending, record: AuditRecord): void {
    if (pending.settled) {
      // Its caller was answered 503 already; the record stands in the chain all the same.
      this.#logger?.warn({ seq: record.seq }, 'audit record committed after its deadline')
      return
    }
    this.#answered(pending)
    pending.resolve(record)
  }

  /** The append failed: answer its caller (unless the deadline answered it already). */
  #reject(pending: Pending, error: Error): void {
    if (pending.settled) return
    this.#answered(pending)
    pending.reject(error)
  }

  #answered(pending: Pending): void {
    pending.settled = true
    if (this.#watch[this.#watchHead] === pending) this.#dropAnswered()
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      // A lone append (an idle gateway: most calls) takes the whole queue, no splice.
      let batch: Pending[]
      if (this.#pending.length <= this.#maxBatch) {
        batch = this.#pending
        this.#pending = []
      } else batch = this.#pending.splice(0, this.#maxBatch)
      this.#batchStartedAt = performance.now()
      try {
        let sealed: (AuditRecord | undefined)[] = []
        let written: AuditRecord[] = []
        await this.#store.appendAudit((head) => {
          sealed = sealEach(head, entriesOf(batch))
          written = sealed.includes(undefined)
            ? sealed.filter((record) => record !== undefined)
            : (sealed as AuditRecord[])
          return written
        })
        this.#failedAt = undefined
        this.#publish(written)
        for (let i = 0; i < batch.length; i++) {
          const p = batch[i] as Pending
          const record = sealed[i]
          if (record) this.#resolve(p, record)
          else {
            this.#logger?.error({ action: p.entry.action }, 'audit entry has no canonical JSON form')
            this.#reject(p, auditUnavailableError())
          }
        }
      } catch (err) {
        this.#failedAt = performance.now()
        this.#logger?.error({ err, records: batch.length }, 'audit append failed')
        const error = auditUnavailableError()
        for (const p of batch) this.#reject(p, error)
      } finally {
        this.#batchStartedAt = undefined
      }
    }
    this.#writing = false
    const settle = this.#settleIdle
    this.#idle = undefined
    this.#settleIdle = undefined
    settle?.()
  }
}

/** The entries of a batch, in order. */
function entriesOf(batch: readonly Pending[]): AuditEntry[] {
  const entries = new Array<AuditEntry>(batch.length)
  for (let i = 0; i < batch.length; i++) entries[i] = (batch[i] as Pending).entry
  return entries
}
