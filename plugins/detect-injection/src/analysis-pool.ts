/**
 * A small pool of worker threads that analyse long texts off the event loop,
 * so one large tool result does not stall every other call for tens of
 * milliseconds. Threads start on first use and are `unref()`ed while idle, so
 * the pool never keeps the process alive; a thread that waits on nothing is
 * never referenced. A thread that dies is dropped (its texts reject with
 * {@link WORKER_FAILED}) and a later text starts a new one.
 */
import { Worker } from 'node:worker_threads'
import { GovError, type StepLogger } from '@gov/core'
import type { AnalysisReply, AnalysisRequest } from './analysis-protocol.js'
import type { Analysis, AnalyzeOptions } from './detector.js'
import type { LinearModel } from './linear-model.js'
import type { Channel } from './match-rules.js'

/** A worker thread died or failed while analysing a text; the hook fails with this code. */
export const WORKER_FAILED = 'GOV_ERR_INJECTION_WORKER_FAILED'
/** The pool was closed (its pipeline version was replaced) before the text could be analysed. */
export const POOL_CLOSED = 'GOV_ERR_INJECTION_POOL_CLOSED'

/** The compiled worker script, next to this module. */
export const ANALYSIS_WORKER_URL = new URL('./analysis-worker.js', import.meta.url)

interface Job {
  resolve(analysis: Analysis): void
  reject(error: Error): void
}

/** One thread and the texts it has not answered yet. */
interface PoolThread {
  readonly worker: Worker
  readonly jobs: Map<number, Job>
}

/** Options of {@link AnalysisPool}. */
export interface AnalysisPoolOptions {
  /** Most threads to run; a thread starts only when every running one is busy. */
  readonly size: number
  readonly logger: StepLogger
  /** The model the threads score with, copied to each (the calling thread's, so results match). */
  readonly model: LinearModel
  /** The worker script; tests substitute one. */
  readonly workerUrl?: URL
}

/** What a worker needs to rebuild the model: plain data, copied once when the thread starts. */
export interface ModelData {
  readonly bits: number
  readonly channels: LinearModel['channels']
  readonly combine: LinearModel['combine']
}

function modelData(model: LinearModel): ModelData {
  return { bits: model.bits, channels: model.channels, combine: model.combine }
}

/** Worker threads running {@link InjectionDetector.analyze}. */
export class AnalysisPool {
  readonly #options: AnalysisPoolOptions
  readonly #threads: PoolThread[] = []
  #nextId = 1
  #closed = false

  constructor(options: AnalysisPoolOptions) {
    this.#options = { ...options, size: Math.max(1, options.size) }
  }

  /** The running worker threads (for diagnostics and tests). */
  get workers(): readonly Worker[] {
    return this.#threads.map((t) => t.worker)
  }

  /**
   * Analyse `text` on a worker thread. Rejects with {@link WORKER_FAILED} when
   * the thread dies or the analysis throws, and with {@link POOL_CLOSED} after
   * {@link close}.
   */
  analyze(text: string, channel: Channel, options: AnalyzeOptions = {}): Promise<Analysis> {
    if (this.#closed) return Promise.reject(new GovError(POOL_CLOSED, 'the analysis pool is closed', 500))
    const thread = this.#pick()
    const id = this.#nextId++
    const request: AnalysisRequest = { id, text, channel, decodePayloads: options.decodePayloads !== false }
    return new Promise<Analysis>((resolve, reject) => {
      thread.jobs.set(id, { resolve, reject })
      // Referenced only while a text waits on it, so an awaited analysis still ends.
      if (thread.jobs.size === 1) thread.worker.ref()
      thread.worker.postMessage(request)
    })
  }

  /** Stop every thread; texts still waiting reject with {@link POOL_CLOSED}. */
  async close(): Promise<void> {
    this.#closed = true
    const threads = this.#threads.splice(0)
    for (const thread of threads) this.#failJobs(thread, POOL_CLOSED, 'the analysis pool was closed')
    await Promise.all(threads.map((t) => t.worker.terminate()))
  }

  /** The least busy thread; a new one while every thread is busy and the pool has room. */
  #pick(): PoolThread {
    let best: PoolThread | undefined
    for (const thread of this.#threads) if (!best || thread.jobs.size < best.jobs.size) best = thread
    if (best && (best.jobs.size === 0 || this.#threads.length >= this.#options.size)) return best
    return this.#spawn()
  }

  #spawn(): PoolThread {
    const worker = new Worker(this.#options.workerUrl ?? ANALYSIS_WORKER_URL, {
      name: 'gov-detect-injection-analysis',
      workerData: modelData(this.#options.model),
    })
    worker.unref()
    const thread: PoolThread = { worker, jobs: new Map() }
    this.#threads.push(thread)
    worker.on('message', (reply: AnalysisReply) => this.#receive(thread, reply))
    worker.on('error', (error) => {
      this.#options.logger.error(
        { err: error.message, code: WORKER_FAILED },
        'detect_injection analysis worker failed',
      )
    })
    worker.on('messageerror', () =>
      this.#failJobs(thread, WORKER_FAILED, 'unreadable message from the worker'),
    )
    worker.on('exit', (exitCode) => {
      const index = this.#threads.indexOf(thread)
      if (index >= 0) this.#threads.splice(index, 1)
      this.#failJobs(thread, WORKER_FAILED, `the analysis worker exited with code ${exitCode}`)
    })
    return thread
  }

  #receive(thread: PoolThread, reply: AnalysisReply): void {
    const job = thread.jobs.get(reply.id)
    if (!job) return
    thread.jobs.delete(reply.id)
    if (thread.jobs.size === 0) thread.worker.unref()
    if ('error' in reply) job.reject(new GovError(WORKER_FAILED, reply.error, 500))
    else job.resolve(reply.analysis)
  }

  #failJobs(thread: PoolThread, code: string, reason: string): void {
    const jobs = [...thread.jobs.values()]
    thread.jobs.clear()
    for (const job of jobs) job.reject(new GovError(code, reason, 500))
  }
}
