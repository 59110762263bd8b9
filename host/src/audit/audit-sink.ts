/**
 * Forwarding audit records to a SIEM. A sink gets each batch of records this
 * replica wrote once it is committed (`AuditTrail.onCommitted`) and delivers
 * them through a transport (webhook or syslog) in the background:
 *
 * - never in the way of a call: `enqueue` only appends to a queue in memory;
 * - failed deliveries are retried with exponential backoff (0.5 s doubling to
 *   30 s, with jitter), in `seq` order, the same records again;
 * - the queue is bounded (`GOV_AUDIT_SINK_BACKLOG`): past it the oldest records
 *   leave the queue, but their `seq` range is kept as a gap, and once the
 *   receiver is back the sink re-reads that range from the store (its cursor)
 *   before it goes on. Delivery is at least once: a retried batch, or a gap
 *   re-read (which also holds records other replicas wrote and sent), can
 *   arrive twice; receivers dedupe by `seq` (or `id`).
 *
 * Counts `gov_audit_sink_records_total{sink, result=sent|failed|dropped}`:
 * `failed` per record in a failed attempt, `dropped` per record pushed out of
 * a full queue (re-read later from the store when it still holds it).
 */
import type { StepCounter } from '@gov/core'
import type { Logger } from '../logging.js'
import type { AuditRecord, Store } from '../storage/store.js'

/** Delivers one batch; rejects when the receiver did not take it. */
export interface SinkTransport {
  /** `webhook` or `syslog`: the metric label. */
  readonly name: string
  deliver(records: readonly AuditRecord[]): Promise<void>
  close?(): Promise<void>
}

export interface AuditSinkOptions {
  transport: SinkTransport
  /** Where a gap of dropped records is re-read from. */
  store?: Store
  counter?: StepCounter
  logger?: Logger
  /** Most records per delivery; default 100. */
  batch?: number
  /** Most records queued; default 10 000. */
  backlog?: number
  minBackoffMs?: number
  maxBackoffMs?: number
}

export class AuditSink {
  readonly #o: AuditSinkOptions
  readonly #batch: number
  readonly #backlog: number
  readonly #minBackoff: number
  readonly #maxBackoff: number
  #queue: AuditRecord[] = []
  /** Records taken from the queue for the delivery under way. */
  #inFlight = 0
  /** `seq` range of records dropped from a full queue, to re-read from the store. */
  #gap: { from: number; to: number } | undefined
  /** `seq` of the last record delivered. */
  #cursor = 0
  #running: Promise<void> | undefined
  #closed = false
  #wake: (() => void) | undefined
  #failures = 0
  #idle: (() => void)[] = []

  constructor(options: AuditSinkOptions) {
    this.#o = options
    this.#batch = options.batch ?? 100
    this.#backlog = options.backlog ?? 10_000
    this.#minBackoff = options.minBackoffMs ?? 500
    this.#maxBackoff = options.maxBackoffMs ?? 30_000
  }

  get name(): string {
    return this.#o.transport.name
  }

  /** `seq` of the last record delivered (0 before the first). */
  get cursor(): number {
    return this.#cursor
  }

  /** Records waiting (queued, plus a gap still to re-read). */
  get pending(): number {
    return this.#queue.length + this.#inFlight + (this.#gap ? this.#gap.to - this.#gap.from + 1 : 0)
  }

  /** Queue committed records for delivery. Synchronous; never throws. */
  enqueue(records: readonly AuditRecord[]): void {
    if (this.#closed || records.length === 0) return
    this.#queue.push(...records)
    this.#trim()
    this.#start()
  }

  /** A failed batch goes back to the front, oldest first. */
  #requeue(batch: AuditRecord[]): void {
    this.#queue.unshift(...batch)
    this.#trim()
  }

  /** Past the bound, the oldest queued records leave; their `seq` range is kept as a gap. */
  #trim(): void {
    const over = this.#queue.length - this.#backlog
    if (over > 0) {
      const dropped = this.#queue.splice(0, over).map((r) => r.seq)
      const from = Math.min(...dropped)
      const to = Math.max(...dropped)
      this.#gap = this.#gap
        ? { from: Math.min(this.#gap.from, from), to: Math.max(this.#gap.to, to) }
        : { from, to }
      this.#o.counter?.inc({ sink: this.name, result: 'dropped' }, over)
    }
  }

  /** Resolves when nothing is waiting (tests, shutdown). */
  drained(): Promise<void> {
    if (this.pending === 0 && !this.#running) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }

  /** Stop delivering; records still queued are not sent (logged). */
  async close(): Promise<void> {
    this.#closed = true
    this.#wake?.()
    await this.#running
    if (this.pending > 0) {
      this.#o.logger?.warn(
        { sink: this.name, pending: this.pending },
        'audit sink closed with records undelivered',
      )
    }
    await this.#o.transport.close?.()
  }

  #start(): void {
    if (this.#running) return
    this.#running = this.#pump().finally(() => {
      this.#running = undefined
      if (this.pending > 0 && !this.#closed) this.#start()
      else for (const resolve of this.#idle.splice(0)) resolve()
    })
  }

  async #pump(): Promise<void> {
    while (!this.#closed && this.pending > 0) {
      let batch: AuditRecord[]
      let fromGap = false
      if (this.#gap && this.#o.store) {
        batch = await this.#o.store
          .listAudit({ order: 'asc', afterSeq: this.#gap.from - 1, limit: this.#batch })
          .then((page) => page.filter((r) => r.seq <= this.#gap!.to))
          .catch(() => [])
        fromGap = true
        if (batch.length === 0 && !(await this.#storeAnswers())) {
          await this.#backoff(0)
          continue
        }
      } else {
        // Without a store the gap is lost: count it and go on with what is queued.
        if (this.#gap) {
          this.#o.logger?.error(
            { sink: this.name, ...this.#gap },
            'audit sink dropped records it cannot re-read',
          )
          this.#gap = undefined
        }
        // Out of the queue while it is out: a full queue cannot drop what is being sent.
        batch = this.#queue.splice(0, this.#batch)
        this.#inFlight = batch.length
      }
      if (fromGap && batch.length === 0) {
        // The store no longer holds the range (memory store cap): nothing left to send from it.
        this.#gap = undefined
        continue
      }
      try {
        await this.#o.transport.deliver(batch)
      } catch (err) {
        this.#inFlight = 0
        if (!fromGap) this.#requeue(batch)
        this.#o.counter?.inc({ sink: this.name, result: 'failed' }, batch.length)
        if (this.#failures === 0) {
          this.#o.logger?.warn(
            { sink: this.name, err: (err as Error).message, pending: this.pending },
            'audit sink delivery failed; retrying with backoff',
          )
        }
        this.#failures += 1
        await this.#backoff(this.#failures)
        continue
      }
      if (this.#failures > 0) this.#o.logger?.info({ sink: this.name }, 'audit sink delivering again')
      this.#failures = 0
      this.#o.counter?.inc({ sink: this.name, result: 'sent' }, batch.length)
      const last = batch.at(-1)!.seq
      this.#cursor = Math.max(this.#cursor, last)
      if (fromGap) {
        this.#gap = last >= this.#gap!.to ? undefined : { from: last + 1, to: this.#gap!.to }
      }
      this.#inFlight = 0
    }
  }

  async #storeAnswers(): Promise<boolean> {
    try {
      await this.#o.store!.listAudit({ order: 'desc', limit: 1 })
      return true
    } catch {
      return false
    }
  }

  #backoff(failures: number): Promise<void> {
    const base = Math.min(this.#maxBackoff, this.#minBackoff * 2 ** Math.max(0, failures - 1))
    const ms = base / 2 + Math.random() * (base / 2)
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref()
      const self = this
      function done() {
        clearTimeout(timer)
        self.#wake = undefined
        resolve()
      }
      this.#wake = done
    })
  }
}
