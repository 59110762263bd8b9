/**
 * Signs checkpoints of the audit chain's head at an interval
 * (`GOV_AUDIT_CHECKPOINT_INTERVAL_S`) and on demand (`POST /audit/checkpoints`),
 * stores them, and verifies chain and checkpoints together.
 *
 * Several replicas: each signs on its own timer, and the store keeps one
 * checkpoint per head `seq` (primary key; a second insert of the same `seq` is
 * dropped). A replica that finds the head already checkpointed signs nothing,
 * so an idle chain gets no new checkpoints; two replicas that see different
 * heads both store theirs, which is harmless (both are true).
 */
import type { JSONWebKeySet } from 'jose'
import type { Logger } from '../logging.js'
import type { AuditCheckpoint, CheckpointQuery, Store } from '../storage/store.js'
import { type CheckpointSigner, checkpointKeys, signCheckpoint } from './checkpoint.js'
import { type EvidenceResult, EvidenceVerifier } from './evidence-verify.js'

export interface AuditCheckpointsOptions {
  store: Store
  signer: CheckpointSigner & { jwks(): Promise<JSONWebKeySet> }
  /** `iss` of the checkpoints: the token issuer. */
  issuer: string
  /** Seconds between checkpoints; 0 = only on demand. */
  intervalSeconds: number
  logger?: Logger
  now?: () => Date
  /** Records and checkpoints read per page when verifying; default 1000. */
  pageSize?: number
}

/** The answer of a checkpoint request. */
export interface CheckpointResult {
  readonly checkpoint: AuditCheckpoint
  /** False when the head was checkpointed already (by this or another replica). */
  readonly created: boolean
}

export class AuditCheckpoints {
  readonly #o: AuditCheckpointsOptions
  readonly #now: () => Date
  readonly #pageSize: number
  #timer: NodeJS.Timeout | undefined
  #running: Promise<unknown> = Promise.resolve()

  constructor(options: AuditCheckpointsOptions) {
    this.#o = options
    this.#now = options.now ?? (() => new Date())
    this.#pageSize = options.pageSize ?? 1000
  }

  /** Start the interval (no-op when it is 0). */
  start(): void {
    if (this.#o.intervalSeconds <= 0 || this.#timer) return
    this.#timer = setInterval(() => {
      this.#running = this.checkpoint().catch((err) =>
        this.#o.logger?.warn(
          { err: (err as Error).message },
          'audit checkpoint failed; retried next interval',
        ),
      )
    }, this.#o.intervalSeconds * 1000)
    this.#timer.unref()
  }

  /** Stop the interval and wait for a checkpoint in progress. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#running
  }

  /**
   * Sign and store a checkpoint of the current head. Undefined when the chain
   * is empty. When the head has a checkpoint already, that one is returned
   * (`created: false`) and nothing is signed.
   */
  async checkpoint(): Promise<CheckpointResult | undefined> {
    const { store } = this.#o
    const [head] = await store.listAudit({ order: 'desc', limit: 1 })
    if (!head) return undefined
    const [latest] = await store.listCheckpoints({ order: 'desc', limit: 1 })
    if (latest && latest.seq === head.seq) return { checkpoint: latest, created: false }
    const checkpoint = await signCheckpoint(this.#o.signer, this.#o.issuer, head, this.#now())
    if (await store.saveCheckpoint(checkpoint)) {
      this.#o.logger?.info({ seq: checkpoint.seq, kid: checkpoint.kid }, 'audit checkpoint signed')
      return { checkpoint, created: true }
    }
    // Another replica stored this head first.
    const [stored] = await store.listCheckpoints({
      afterSeq: head.seq - 1,
      upToSeq: head.seq,
      order: 'asc',
      limit: 1,
    })
    return { checkpoint: stored ?? checkpoint, created: false }
  }

  /** Stored checkpoints by `seq`. */
  list(query: CheckpointQuery): Promise<AuditCheckpoint[]> {
    return this.#o.store.listCheckpoints(query)
  }

  /**
   * Re-check the whole chain and every checkpoint against the gateway's JWKS.
   * A checkpoint whose key has left the JWKS (rotated out) still has its head
   * compared and counts as `key_retired`.
   */
  async verify(): Promise<EvidenceResult> {
    const { store } = this.#o
    const anchor = store.auditAnchor?.()
    const verifier = new EvidenceVerifier({
      keys: checkpointKeys(await this.#o.signer.jwks()),
      allowRetiredKeys: true,
      ...(anchor ? { anchor } : {}),
    })
    for (let afterSeq = anchor?.seq ?? 0; ; ) {
      const page = await store.listCheckpoints({ afterSeq, order: 'asc', limit: this.#pageSize })
      for (const checkpoint of page) await verifier.addCheckpoint(checkpoint)
      if (page.length < this.#pageSize) break
      afterSeq = page.at(-1)!.seq
    }
    for (let afterSeq = anchor?.seq; ; ) {
      const page = await store.listAudit({
        order: 'asc',
        limit: this.#pageSize,
        ...(afterSeq === undefined ? {} : { afterSeq }),
      })
      for (const record of page) verifier.add(record)
      if (page.length < this.#pageSize) break
      afterSeq = page.at(-1)!.seq
    }
    return verifier.result()
  }
}
