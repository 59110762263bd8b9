import type { ChildProcess } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { spawnNode } from './spawn-pinned.js'

/** A server the runner started in a child process. */
export interface ServerProcess {
  readonly name: string
  /** What the server announced (its `url` at least). */
  readonly info: { url: string } & Record<string, unknown>
  stop(): Promise<void>
}

/** Cores: the servers share core 0, the load generator gets core 1. */
export const SERVER_CORE = 0

/**
 * Start `script` as a server process on {@link SERVER_CORE} and wait for its
 * ready line. Its stderr (logs) goes to `logFile`.
 */
export async function startServerProcess(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  timeoutMs = 60_000,
  /** Extra flags for node itself (e.g. `--cpu-prof`). */
  nodeFlags: readonly string[] = [],
): Promise<ServerProcess> {
  const log = openSync(logFile, 'w')
  const child = spawnNode(
    script,
    [],
    SERVER_CORE,
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', log],
    },
    nodeFlags,
  )
  closeSync(log)
  const info = await readyLine(name, child, timeoutMs, logFile)
  return {
    name,
    info,
    stop: () => stopChild(child),
  }
}

function readyLine(
  name: string,
  child: ChildProcess,
  timeoutMs: number,
  logFile: string,
): Promise<ServerProcess['info']> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} did not start within ${timeoutMs} ms; see ${logFile}`))
    }, timeoutMs)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with code ${code} before it was ready; see ${logFile}`))
    })
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk
      const line = buffered.split('\n').find((l) => l.startsWith('{"ready":true'))
      if (!line) return
      clearTimeout(timer)
      child.removeAllListeners('exit')
      resolve(JSON.parse(line) as ServerProcess['info'])
    })
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}
