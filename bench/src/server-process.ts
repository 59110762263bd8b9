import type { ChildProcess } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { spawnNode } from './spawn-pinned.js'

/** A server the runner started in a child process. */
export interface ServerProcess {
  readonly name: string
  /** What the server announced (its `url` at least). */
  readonly info: { url: string } & Record<string, unknown>
  /** The server's process id (taskset execs node, so it is node's), for its CPU time in /proc. */
  readonly pid: number | undefined
  /**
   * SIGUSR2, then the next `{"memory":…}` line the server prints (gov-server.ts
   * with `GOV_BENCH_MEMORY_PROBE=1`); rejects after `timeoutMs`.
   */
  probeMemory(timeoutMs?: number): Promise<MemoryProbe>
  stop(): Promise<void>
}

/** What a server retains after a full garbage collection (bytes), and its heap snapshot if one was written. */
export interface MemoryProbe {
  rss: number
  heapUsed: number
  heapTotal: number
  external: number
  arrayBuffers: number
  /** False when the server ran without `--expose-gc` (the numbers then include garbage). */
  collected: boolean
  snapshot?: string
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
    pid: child.pid,
    probeMemory: (probeTimeoutMs = 300_000) => probeMemory(name, child, probeTimeoutMs),
    stop: () => stopChild(child),
  }
}

function probeMemory(name: string, child: ChildProcess, timeoutMs: number): Promise<MemoryProbe> {
  return new Promise((resolve, reject) => {
    let buffered = ''
    const onData = (chunk: string) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop() ?? ''
      const line = lines.find((l) => l.startsWith('{"memory":'))
      if (!line) return
      done()
      resolve((JSON.parse(line) as { memory: MemoryProbe }).memory)
    }
    const onExit = () => {
      done()
      reject(new Error(`${name} exited during a memory probe`))
    }
    const timer = setTimeout(() => {
      done()
      reject(new Error(`${name} printed no memory line within ${timeoutMs} ms`))
    }, timeoutMs)
    const done = () => {
      clearTimeout(timer)
      child.stdout!.off('data', onData)
      child.off('exit', onExit)
    }
    child.stdout!.on('data', onData)
    child.once('exit', onExit)
    child.kill('SIGUSR2')
  })
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
    const onReady = (chunk: string) => {
      buffered += chunk
      const line = buffered.split('\n').find((l) => l.startsWith('{"ready":true'))
      if (!line) return
      clearTimeout(timer)
      child.removeAllListeners('exit')
      child.stdout!.off('data', onReady)
      resolve(JSON.parse(line) as ServerProcess['info'])
    }
    child.stdout!.on('data', onReady)
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
