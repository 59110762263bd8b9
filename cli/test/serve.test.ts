import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, type Server } from 'node:net'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { describeStartupError, ServeErrorCodes } from '../src/serve/describe-startup-error.js'

const BIN = fileURLToPath(new URL('../../bin/gov.js', import.meta.url))

interface Started {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exit: Promise<number | null>
}

function spawnServe(env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, ['--import', 'reflect-metadata', BIN, 'serve'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8')
  })
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString('utf8')
  })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, stdout: () => out, stderr: () => err, exit }
}

/** Wait for the `gov listening` JSON log line and return its URL (a bound, generous: start-up loads every detector, slow on a busy 2-core machine). */
async function listeningUrl(started: Started, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    for (const line of started.stdout().split('\n')) {
      if (!line.startsWith('{')) continue
      const entry = JSON.parse(line) as { msg?: string; url?: string }
      if (entry.msg === 'gov listening' && entry.url) return entry.url
    }
    if (started.child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`no "gov listening" line; stderr: ${started.stderr()}`)
}

describe('gov serve', () => {
  const children: ChildProcess[] = []
  after(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`serves until ${signal}, then exits 0`, async () => {
      const started = spawnServe({ GOV_PORT: '0', GOV_ADMIN_API_KEY: 'test-admin', LOG_LEVEL: 'info' })
      children.push(started.child)
      const url = await listeningUrl(started)
      const live = await fetch(`${url}/health/live`)
      assert.equal(live.status, 200)
      started.child.kill(signal)
      assert.equal(await started.exit, 0)
      assert.match(started.stdout(), /"gov stopped"/)
    })
  }

  it('prints one coded line and exits 1 on a bad configuration', async () => {
    const started = spawnServe({ GOV_PORT: 'eighty', GOV_ADMIN_API_KEY: 'test-admin' })
    children.push(started.child)
    assert.equal(await started.exit, 1)
    const lines = started.stderr().trim().split('\n')
    assert.equal(lines.length, 1)
    assert.match(lines[0]!, /^gov: GOV_ERR_CONFIG_INVALID: GOV_PORT/)
  })

  it('prints one coded line and exits 1 when the port is taken', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      const started = spawnServe({
        GOV_PORT: String(port),
        GOV_ADMIN_API_KEY: 'test-admin',
        LOG_LEVEL: 'silent',
      })
      children.push(started.child)
      assert.equal(await started.exit, 1)
      const lines = started.stderr().trim().split('\n')
      assert.equal(lines.length, 1, started.stderr())
      assert.ok(lines[0]!.startsWith(`gov: ${ServeErrorCodes.PORT_IN_USE}: `))
      assert.ok(!started.stderr().includes('    at '), 'no stack trace')
    } finally {
      blocker.close()
    }
  })
})

describe('describeStartupError', () => {
  it('keeps the code of coded errors', () => {
    const err = Object.assign(new Error('step plugin x cannot be found\nmore'), {
      code: 'GOV_ERR_PLUGIN_NOT_FOUND',
    })
    assert.deepEqual(describeStartupError(err), {
      code: 'GOV_ERR_PLUGIN_NOT_FOUND',
      line: 'step plugin x cannot be found',
    })
  })

  it('names address problems', () => {
    const denied = Object.assign(new Error('listen EACCES'), { code: 'EACCES', address: '0.0.0.0', port: 80 })
    assert.equal(describeStartupError(denied).code, ServeErrorCodes.ADDRESS_DENIED)
  })

  it('codes anything else as a failed start', () => {
    assert.equal(describeStartupError(new TypeError('boom')).code, ServeErrorCodes.START_FAILED)
    assert.equal(describeStartupError(undefined).code, ServeErrorCodes.START_FAILED)
  })
})
