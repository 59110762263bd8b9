import type { LoadJob, LoadResult, LoadRun, WorkerJob } from './load-worker.js'
import { spawnNode } from './spawn-pinned.js'

/** The load generator's core (the servers use core 0). */
export const LOAD_CORE = 1

/** Run one load job in the worker process on {@link LOAD_CORE} and return its result. */
export function runLoad(workerScript: string, job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawnNode(workerScript, [JSON.stringify(job)], LOAD_CORE, {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      out += chunk
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop()
      if (code !== 0 || !line) {
        reject(new Error(`load worker exited with code ${code}`))
        return
      }
      resolve(JSON.parse(line) as LoadResult)
    })
  })
}

/** The load generator started once in `--serve` mode on {@link LOAD_CORE}, taking one job at a time. */
export interface LoadWorker {
  /** The worker's process id (taskset execs node, so it is node's), for its CPU time. */
  readonly pid: number | undefined
  run(job: Extract<WorkerJob, { kind: 'load' }>): Promise<LoadRun>
  run(job: Extract<WorkerJob, { kind: 'unloaded' }>): Promise<LoadResult['unloaded']>
  stop(): Promise<void>
}

export function startLoadWorker(workerScript: string): LoadWorker {
  const child = spawnNode(workerScript, ['--serve'], LOAD_CORE, { stdio: ['pipe', 'pipe', 'inherit'] })
  let buffered = ''
  let waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void } | undefined
  let exited: Error | undefined
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk
    let newline = buffered.indexOf('\n')
    while (newline >= 0) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      const w = waiting
      waiting = undefined
      if (w) {
        try {
          const answer = JSON.parse(line) as { result?: unknown; error?: string }
          if (answer.error !== undefined) w.reject(new Error(`load worker: ${answer.error}`))
          else w.resolve(answer.result)
        } catch (err) {
          w.reject(err instanceof Error ? err : new Error(String(err)))
        }
      }
      newline = buffered.indexOf('\n')
    }
  })
  child.once('exit', (code, signal) => {
    exited = new Error(`load worker exited (code ${code}, signal ${signal})`)
    waiting?.reject(exited)
    waiting = undefined
  })
  const run = (job: WorkerJob): Promise<unknown> => {
    if (exited) return Promise.reject(exited)
    if (waiting) return Promise.reject(new Error('load worker: one job at a time'))
    return new Promise((resolve, reject) => {
      waiting = { resolve, reject }
      child.stdin!.write(`${JSON.stringify(job)}\n`)
    })
  }
  return {
    pid: child.pid,
    run: run as LoadWorker['run'],
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        const force = setTimeout(() => child.kill('SIGKILL'), 5_000)
        child.once('exit', () => {
          clearTimeout(force)
          resolve()
        })
        child.stdin!.end()
      }),
  }
}
