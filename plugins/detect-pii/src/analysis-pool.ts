import { Worker } from 'node:worker_threads'
import { GovError, type StepLogger } from '@gov/core'
import type { PlainAnalyzerOptions } from './analysis-options.js'
import type { AnalysisRequest, WorkerMessage } from './analysis-protocol.js'
import type { Detection } from './pii-types.js'

/** Code of the error an analysis rejects with when its worker fails or exits, or the pool closes. */
export const PII_WORKER_FAILED = 'GOV_ERR_PII_WORKER_FAILED'

/** The compiled worker script, next to this module. */
export const ANALYSIS_WORKER_URL = new URL('./analysis-worker.js', import.meta.url)

/** After a thread dies before it was ready, no new one starts for this long (a broken install would loop). */
const RESTART_DELAY_MS = 10_000

interface Job {
  resolve(detections: Detection[]): void
  reject(err: Error): void
}

/** One worker thread and the jobs it has not answered yet. */
class PoolWorker {
  readonly jobs = new Map<number, Job>()
  ready = false
  /** Resolves true when the thread can take texts, false if it ends before that. */
  readonly started: Promise<boolean>
  #settle: ((ready: boolean) => void) | undefined

  constructor(readonly thread: Worker) {
    this.started = new Promise<boolean>((resolve) => {
      this.#settle = resolve
    })
  }

  markReady(): void {
    this.ready = true
    this.#settle?.(true)
  }

  markEnded(): void {
    this.#settle?.(false)
  }
}

/**
 * A small pool of worker threads that analyse long texts off the event loop.
 * Threads start on first use and are `unref()`ed while idle, so an idle pool
 * never keeps the process alive. A thread that fails is dropped (its jobs
 * reject with {@link PII_WORKER_FAILED}) and replaced on a later use.
 */
export class AnalysisPool {
  readonly #options: PlainAnalyzerOptions
  readonly #size: number
  readonly #logger: StepLogger
  readonly #workerUrl: URL
  readonly #workers: PoolWorker[] = []
  #nextId = 1
  #closed = false
  #restartAt = 0

  constructor(
    options: PlainAnalyzerOptions,
    size: number,
    logger: StepLogger,
    workerUrl: URL = ANALYSIS_WORKER_URL,
  ) {
    this.#options = options
    this.#size = Math.max(1, size)
    this.#logger = logger
    this.#workerUrl = workerUrl
  }

  /** Number of running worker threads, ready or starting. */
  get threads(): number {
    return this.#workers.length
  }

  /** Starts a thread if none runs; resolves true when one can take texts, false if it could not start. */
  start(): Promise<boolean> {
    if (this.#workers.some((w) => w.ready)) return Promise.resolve(true)
    const starting = this.#workers[0] ?? this.#spawn()
    return starting ? starting.started : Promise.resolve(false)
  }

  /**
   * Analyses `text` in a ready worker thread; rejects with
   * {@link PII_WORKER_FAILED} if the thread fails. Returns undefined when no
   * thread is ready yet, and starts one: a thread needs ~0.45 s to load the
   * name gazetteer, longer than the text takes on the caller's thread.
   */
  analyze(text: string): Promise<Detection[]> | undefined {
    const worker = this.#pick()
    if (!worker) return undefined
    const id = this.#nextId++
    return new Promise<Detection[]>((resolve, reject) => {
      worker.jobs.set(id, { resolve, reject })
      // Keep the process alive only while a job waits for this thread.
      if (worker.jobs.size === 1) worker.thread.ref()
      const request: AnalysisRequest = { id, text }
      worker.thread.postMessage(request)
    })
  }

  /** Stops every thread; jobs still waiting reject with {@link PII_WORKER_FAILED}. */
  async close(): Promise<void> {
    this.#closed = true
    const workers = this.#workers.splice(0)
    await Promise.all(workers.map((w) => w.thread.terminate()))
    for (const w of workers) this.#failJobs(w, 'analysis pool closed')
  }

  /** The least busy ready thread; starts another while every thread is busy and the pool is below its size. */
  #pick(): PoolWorker | undefined {
    let best: PoolWorker | undefined
    for (const w of this.#workers) if (w.ready && (!best || w.jobs.size < best.jobs.size)) best = w
    if ((!best || best.jobs.size > 0) && this.#workers.every((w) => w.ready)) {
      if (this.#workers.length < this.#size) this.#spawn()
    }
    return best
  }

  #spawn(): PoolWorker | undefined {
    if (this.#closed || Date.now() < this.#restartAt) return undefined
    const thread = new Worker(this.#workerUrl, { workerData: this.#options, name: 'gov-detect-pii-analysis' })
    thread.unref()
    const worker = new PoolWorker(thread)
    this.#workers.push(worker)
    thread.on('message', (message: WorkerMessage) => this.#receive(worker, message))
    thread.on('error', (err) => {
      this.#logger.error({ err: err.message, code: PII_WORKER_FAILED }, 'detect_pii analysis worker failed')
    })
    thread.on('messageerror', () => this.#failJobs(worker, 'analysis worker sent an unreadable message'))
    thread.on('exit', (exitCode) => {
      const index = this.#workers.indexOf(worker)
      if (index >= 0) this.#workers.splice(index, 1)
      if (!worker.ready && !this.#closed) this.#restartAt = Date.now() + RESTART_DELAY_MS
      worker.markEnded()
      this.#failJobs(worker, `analysis worker exited with code ${exitCode}`)
    })
    return worker
  }

  #receive(worker: PoolWorker, message: WorkerMessage): void {
    if (message.kind === 'ready') {
      worker.markReady()
      return
    }
    const job = worker.jobs.get(message.id)
    if (!job) return
    worker.jobs.delete(message.id)
    if (worker.jobs.size === 0) worker.thread.unref()
    if (message.kind === 'error') job.reject(new GovError(PII_WORKER_FAILED, message.error))
    else job.resolve(message.detections)
  }

  #failJobs(worker: PoolWorker, reason: string): void {
    const jobs = [...worker.jobs.values()]
    worker.jobs.clear()
    for (const job of jobs) job.reject(new GovError(PII_WORKER_FAILED, reason))
  }
}
