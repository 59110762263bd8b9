/**
 * A redis-server of the test's own on a free loopback port, which the test may
 * stop and start again (an outage) without touching the shared Redis other
 * tests use. Skips when the `redis-server` binary is not installed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { connect, createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

/** Skip option for `describe` when `redis-server` cannot be run. */
export const skipWithoutRedisServer =
  spawnSync('redis-server', ['--version']).status === 0 ? false : 'redis-server is not installed'

/** A private Redis: `stop()` kills it, `start()` brings it back on the same port (empty: it keeps no data). */
export interface PrivateRedis {
  readonly url: string
  start(): Promise<void>
  stop(): Promise<void>
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      )
      for (let i = 0; i < 200 && !(await accepts(port)); i++) await sleep(20)
      if (!(await accepts(port))) throw new Error(`redis-server did not start on port ${port}`)
    },
    async stop() {
      const running = child
      child = undefined
      if (!running || running.exitCode !== null) return
      const exited = new Promise((resolve) => running.once('exit', resolve))
      running.kill('SIGKILL')
      await exited
    },
  }
  await redis.start()
  return redis
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })
}
