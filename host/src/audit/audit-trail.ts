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
import { type AuditEntry, sealEach } from './hash-chain.js'
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
  /** Records read per page when verifying; default 1000. */
  verifyPageSize?: number
  /** The clock of record times. */
  now?: () => Date
}

interface Pending {
  readonly entry: AuditEntry
  readonly resolve: (record: AuditRecord) => void
  readonly reject: (error: Error) => void
}

/** Appends to, lists and verifies the audit chain of one store. */
export class AuditTrail {
  readonly #store: Store
  readonly #logger: Logger | undefined
  readonly #maxBatch: number
  readonly #maxPending: number
  readonly #pageSize: number
  readonly #now: () => Date
  #pending: Pending[] = []
  #writing = false
  #idle: Promise<void> = Promise.resolve()
  #settleIdle: () => void = () => {}

  constructor(store: Store, options: AuditTrailOptions = {}) {
    this.#store = store
    this.#logger = options.logger
    this.#maxBatch = options.maxBatch ?? 500
    this.#maxPending = options.maxPending ?? 10_000
    this.#pageSize = options.verifyPageSize ?? 1000
    this.#now = options.now ?? (() => new Date())
  }

  /** Record a finished call; resolves once the record is durable. Rejects with `audit_unavailable`. */
  recordCall(summary: CallSummary): Promise<AuditRecord> {
    return this.append(callEntry(summary, randomUUID(), this.#now()))
  }

  /** Record a management change that succeeded; resolves once durable. Rejects with `audit_unavailable`. */
  recordAdmin(change: AdminChange): Promise<AuditRecord> {
    return this.append(adminEntry(change, randomUUID(), this.#now()))
  }

  /** Append one entry to the chain; resolves with its sealed record once it is committed. */
  append(entry: AuditEntry): Promise<AuditRecord> {
    if (this.#pending.length >= this.#maxPending) {
      this.#logger?.error({ pending: this.#pending.length }, 'audit trail backlog full')
      return Promise.reject(auditUnavailableError())
    }
    return new Promise<AuditRecord>((resolve, reject) => {
      this.#pending.push({ entry, resolve, reject })
      if (!this.#writing) {
        this.#writing = true
        this.#idle = new Promise((settle) => {
          this.#settleIdle = settle
        })
        void this.#drain()
      }
    })
  }

  /** Resolves when no append is waiting or being written (call before closing the store). */
  idle(): Promise<void> {
    return this.#idle
  }

  /** Records matching `query`, by `seq`. */
  list(query: AuditQuery): Promise<AuditRecord[]> {
    return this.#store.listAudit(query)
  }

  /** Re-check the whole chain, page by page, from `seq` 1. */
  async verify(): Promise<VerifyResult> {
    const verifier = new ChainVerifier()
    let afterSeq: number | undefined
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

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending.splice(0, this.#maxBatch)
      try {
        let sealed: (AuditRecord | undefined)[] = []
        await this.#store.appendAudit((head) => {
          sealed = sealEach(
            head,
            batch.map((p) => p.entry),
          )
          return sealed.filter((record) => record !== undefined)
        })
        for (const [i, p] of batch.entries()) {
          const record = sealed[i]
          if (record) p.resolve(record)
          else {
            this.#logger?.error({ action: p.entry.action }, 'audit entry has no canonical JSON form')
            p.reject(auditUnavailableError())
          }
        }
      } catch (err) {
        this.#logger?.error({ err, records: batch.length }, 'audit append failed')
        const error = auditUnavailableError()
        for (const p of batch) p.reject(error)
      }
    }
    this.#writing = false
    this.#settleIdle()
  }
}
