/**
 * gov as separate OS processes (`gov serve`), for scale-out tests: each
 * process has its own memory, so only what goes through the shared
 * PostgreSQL and Redis can be seen across them.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const MAIN = fileURLToPath(new URL('../../../../cli/dist/src/main.js', import.meta.url))

export interface ProcessGateway {
  readonly url: string
  readonly child: ChildProcess
  stop(): Promise<void>
}

/** Start `gov serve` on a free port with `env`; resolves once it logs `gov listening`. */
export async function startProcessGateway(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<ProcessGateway> {
  const child = spawn(process.execPath, ['--import', 'reflect-metadata', MAIN, 'serve'], {
    env: { PATH: process.env.PATH, GOV_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (chunk) => {
    stderr += chunk
  })
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`gov serve did not start in ${timeoutMs} ms: ${stderr}`)),
      timeoutMs,
    )
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`gov serve exited ${code}: ${stderr}`))
    })
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      try {
        const record = JSON.parse(line) as { msg?: string; url?: string }
        if (record.msg === 'gov listening' && record.url) {
          clearTimeout(timer)
          resolve(record.url)
        }
      } catch {}
    })
  })
  return {
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}
