import assert from 'node:assert/strict'
import { createServer, type Server, type Socket } from 'node:net'
import { describe, it } from 'node:test'
import { createKv, readRedisSettings } from '../../src/kv/create-kv.js'
import { KvErrorCodes } from '../../src/kv/kv-errors.js'

/** A loopback TCP server that records what clients send and never answers. */
async function silentServer(): Promise<{ port: number; received: () => Buffer; close: () => Promise<void> }> {
  const chunks: Buffer[] = []
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    port,
    received: () => Buffer.concat(chunks),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A loopback port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = await silentServer()
  await server.close()
  return server.port
}

/** Poll until `check` holds or `ms` pass. */
async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('createKv', () => {
  it('builds the in-process kinds without a Redis URL, always healthy', async () => {
    const handle = await createKv()
    assert.equal(handle.kind, 'memory')
    assert.equal(await handle.healthy(), true)
    assert.equal(await handle.kv.incr('n'), 1)
    await handle.close()
  })

  it('reports a Redis where nothing listens as unhealthy, quickly and without throwing', async () => {
    const errors: Error[] = []
    const handle = await createKv({
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      onError: (e) => errors.push(e),
    })
    try {
      assert.equal(handle.kind, 'redis')
      const started = Date.now()
      assert.equal(await handle.healthy(), false)
      assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`)
      assert.ok(errors.length >= 1, 'connection errors reach onError')
    } finally {
      await handle.close()
    }
  })

  it('fails operations on a down Redis with GOV_ERR_KV_UNAVAILABLE within the command timeout', async () => {
    const handle = await createKv({
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      commandTimeoutMs: 500,
    })
    try {
      for (const operation of [
        () => handle.kv.get('k'),
        () => handle.kv.incr('k'),
        () => handle.kv.setIfAbsent('k', 'v'),
        () => handle.bus.publish('c', 'm'),
      ]) {
        const started = Date.now()
        await assert.rejects(operation(), { code: KvErrorCodes.UNAVAILABLE })
        assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`)
      }
    } finally {
      await handle.close()
    }
  })

  it('reports a Redis that accepts connections but never answers as unhealthy within the deadline', async () => {
    const server = await silentServer()
    const handle = await createKv({ redisUrl: `redis://127.0.0.1:${server.port}`, healthTimeoutMs: 300 })
    try {
      const started = Date.now()
      assert.equal(await handle.healthy(), false)
      const took = Date.now() - started
      assert.ok(took >= 250 && took < 1000, `took ${took} ms`)
      // Commands do not hang either: they fail at the command timeout.
      await assert.rejects(handle.kv.get('k'), { code: KvErrorCodes.UNAVAILABLE })
    } finally {
      await handle.close()
      await server.close()
    }
  })

  it('speaks TLS to a rediss:// URL', async () => {
    const server = await silentServer()
    const handle = await createKv({ redisUrl: `rediss://127.0.0.1:${server.port}`, healthTimeoutMs: 300 })
    try {
      await handle.healthy()
      await waitFor(() => server.received().length > 0)
      // 0x16 0x03: a TLS handshake record; plain Redis would start with '*' (a RESP array).
      assert.deepEqual([...server.received().subarray(0, 2)], [0x16, 0x03])
    } finally {
      await handle.close()
      await server.close()
    }
  })

  it('sends the password of the URL, and plain RESP to a redis:// URL', async () => {
    const server = await silentServer()
    const handle = await createKv({
      redisUrl: `redis://:s3cret-pw@127.0.0.1:${server.port}`,
      healthTimeoutMs: 300,
    })
    try {
      await handle.healthy()
      await waitFor(() => server.received().includes('s3cret-pw'))
      const sent = server.received().toString('latin1')
      assert.equal(sent[0], '*')
      assert.match(sent, /AUTH/i)
      assert.match(sent, /s3cret-pw/)
    } finally {
      await handle.close()
      await server.close()
    }
  })

  it('reads GOV_REDIS_COMMAND_TIMEOUT_MS: a hung Redis fails a command after it, a bad value is refused', async () => {
    for (const bad of ['0', '-5', '1.5', 'soon']) {
      assert.throws(() => readRedisSettings({ GOV_REDIS_COMMAND_TIMEOUT_MS: bad }, 'redis://127.0.0.1:1'), {
        code: 'GOV_ERR_CONFIG_INVALID',
        message: /GOV_REDIS_COMMAND_TIMEOUT_MS/,
      })
    }
    assert.equal(readRedisSettings({}, 'redis://127.0.0.1:1').commandTimeoutMs, undefined)
    const server = await silentServer()
    const url = `redis://127.0.0.1:${server.port}`
    const handle = await createKv({
      redisUrl: url,
      ...readRedisSettings({ GOV_REDIS_COMMAND_TIMEOUT_MS: '1500' }, url),
    })
    try {
      const started = Date.now()
      await assert.rejects(handle.kv.get('k'), { code: KvErrorCodes.UNAVAILABLE })
      const took = Date.now() - started
      // Not the 1 s default: the setting is what bounds the wait.
      assert.ok(took >= 1400 && took < 5000, `took ${took} ms`)
    } finally {
      await handle.close()
      await server.close()
    }
  })
})
