import type { LoadJob, LoadResult } from './load-worker.js'
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
