/**
 * Redis over TLS with a private CA and a client certificate: a real
 * TLS-terminating proxy (node:tls, requires a client certificate signed by the
 * test CA) in front of the test Redis. The gateway (command and bus
 * connections) and `gov doctor` connect with the right files, fail clearly with
 * the wrong CA or without a client certificate, and pick up a rotated CA file
 * without a restart.
 */
import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect as netConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createServer, type Server, type TLSSocket } from 'node:tls'
import { makeTestCa, startTestGateway, type TestCa, type TestGateway } from '@gov/host/testing'
import { checkRedis } from '../src/doctor/check-redis.js'

const REDIS_URL = process.env.GOV_TEST_REDIS_URL
const skip = REDIS_URL ? false : 'GOV_TEST_REDIS_URL not set'

/** A TLS server that requires a client certificate from `ca` and pipes to Redis. */
async function startTlsProxy(ca: TestCa, leaf: { cert: string; key: string }, redis: URL) {
  const peers: string[] = []
  const sockets = new Set<TLSSocket>()
  const server: Server = createServer(
    {
      cert: readFileSync(leaf.cert),
      key: readFileSync(leaf.key),
      ca: readFileSync(ca.caCert),
      requestCert: true,
      rejectUnauthorized: true,
    },
    (socket: TLSSocket) => {
      const cn = socket.getPeerCertificate().subject?.CN
      peers.push(String(cn))
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      const upstream = netConnect(Number(redis.port || 6379), redis.hostname)
      socket.pipe(upstream).pipe(socket)
      const end = () => {
        socket.destroy()
        upstream.destroy()
      }
      socket.on('error', end).on('close', end)
      upstream.on('error', end).on('close', end)
    },
  )
  server.on('tlsClientError', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    port,
    peers,
    /** Cut every connection, as a Redis restart would: the clients reconnect. */
    dropAll: () => {
      for (const socket of sockets) socket.destroy()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
      }),
  }
}

describe('Redis over TLS with a private CA and a client certificate', { skip }, () => {
  let ca: TestCa
  let other: TestCa
  let client: { cert: string; key: string }
  let proxy: Awaited<ReturnType<typeof startTlsProxy>>
  let url: string

  before(async () => {
    ca = makeTestCa({ name: 'gov redis test CA' })
    other = makeTestCa({ name: 'some other CA' })
    client = ca.issue('gov-client', { clientAuth: true })
    const redis = new URL(REDIS_URL as string)
    proxy = await startTlsProxy(ca, ca.issue('redis-proxy'), redis)
    const tlsUrl = new URL(`rediss://127.0.0.1:${proxy.port}`)
    tlsUrl.username = redis.username
    tlsUrl.password = redis.password
    url = tlsUrl.toString()
  })

  after(async () => {
    await proxy?.close()
    ca?.close()
    other?.close()
  })

  async function readyWithin(t: TestGateway, ms: number) {
    const deadline = Date.now() + ms
    for (;;) {
      const res = await t.admin('GET', '/health/ready')
      if (res.status === 200 || Date.now() > deadline) return res
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }

  const files = (caFile: string, withClient = true) => ({
    GOV_REDIS_TLS_CA_FILE: caFile,
    ...(withClient ? { GOV_REDIS_TLS_CERT_FILE: client.cert, GOV_REDIS_TLS_KEY_FILE: client.key } : {}),
  })

  it('connects the gateway (commands and bus) with the CA and client certificate files', async () => {
    const before = proxy.peers.length
    const t = await startTestGateway({ plugins: [], env: { REDIS_URL: url, ...files(ca.caCert) } })
    try {
      // The first check may open the command connection (a TLS handshake on a busy machine): allow a few.
      const ready = await readyWithin(t, 20_000)
      assert.equal(ready.status, 200, JSON.stringify(ready.body))
      assert.equal((ready.body as { checks: { redis: string } }).checks.redis, 'ok')
      const legacy = await t.admin('GET', '/health')
      assert.equal((legacy.body as { kv: string }).kv, 'redis')
    } finally {
      await t.close()
    }
    // The command connection and the bus subscriber both came through the proxy with the client certificate.
    const seen = proxy.peers.slice(before)
    assert.ok(seen.length >= 2, `two TLS connections, saw ${seen.length}`)
    assert.ok(
      seen.every((cn) => cn === 'gov-client'),
      seen.join(','),
    )
  })

  it('does not start with the wrong CA, saying why, and the doctor says which file to fix', async () => {
    await assert.rejects(
      startTestGateway({ plugins: [], env: { REDIS_URL: url, ...files(other.caCert) } }),
      (err: Error & { code?: string }) =>
        err.code === 'GOV_ERR_KV_UNAVAILABLE' && /\(connection: [^)]*certificate/.test(err.message),
    )
    const wrongCa = await checkRedis({
      redisUrl: url,
      production: true,
      timeoutMs: 10_000,
      env: files(other.caCert),
    })
    assert.equal(wrongCa.status, 'fail')
    assert.match(wrongCa.detail, /the server certificate is not signed by GOV_REDIS_TLS_CA_FILE/)
    assert.ok(wrongCa.detail.includes(other.caCert), wrongCa.detail)
  })

  it('names the missing client certificate when the server requires one', async () => {
    const missing = await checkRedis({
      redisUrl: url,
      production: false,
      timeoutMs: 10_000,
      env: files(ca.caCert, false),
    })
    assert.equal(missing.status, 'fail')
    assert.match(
      missing.detail,
      /Redis requires a client certificate: set GOV_REDIS_TLS_CERT_FILE and GOV_REDIS_TLS_KEY_FILE/,
    )
  })

  it('reports TLS on and the files in gov doctor when they are right', async () => {
    const ok = await checkRedis({
      redisUrl: url,
      production: false,
      timeoutMs: 10_000,
      env: files(ca.caCert),
    })
    assert.equal(ok.status, 'ok', ok.detail)
    assert.match(ok.detail, /PONG, Redis [^,]+, TLS on, /)
    assert.ok(ok.detail.includes(`(TLS with CA ${ca.caCert}, client certificate ${client.cert})`), ok.detail)
    const plain = await checkRedis({ redisUrl: REDIS_URL, production: false, timeoutMs: 10_000, env: {} })
    assert.match(plain.detail, /TLS off/)
  })

  it('presents a rotated client certificate on new connections without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gov-redis-tls-'))
    const cert = join(dir, 'client.crt')
    const key = join(dir, 'client.key')
    copyFileSync(client.cert, cert)
    copyFileSync(client.key, key)
    const env = {
      REDIS_URL: url,
      GOV_REDIS_TLS_CA_FILE: ca.caCert,
      GOV_REDIS_TLS_CERT_FILE: cert,
      GOV_REDIS_TLS_KEY_FILE: key,
    }
    const t = await startTestGateway({ plugins: [], env })
    try {
      assert.equal((await readyWithin(t, 20_000)).status, 200)
      // A rotation writes the new pair in place; then Redis restarts (every connection drops).
      const next = ca.issue('gov-client-rotated', { clientAuth: true })
      copyFileSync(next.key, key)
      copyFileSync(next.cert, cert)
      const before = proxy.peers.length
      proxy.dropAll()
      assert.equal((await readyWithin(t, 20_000)).status, 200, 'ready again after the reconnect')
      const seen = proxy.peers.slice(before)
      assert.ok(seen.length >= 2, `both connections came back, saw ${seen.join(',')}`)
      assert.ok(
        seen.every((cn) => cn === 'gov-client-rotated'),
        `new connections present the rotated certificate: ${seen.join(',')}`,
      )
    } finally {
      await t.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('refuses settings that cannot work, naming them', async () => {
    await assert.rejects(
      startTestGateway({
        plugins: [],
        env: { REDIS_URL: url, GOV_REDIS_TLS_CA_FILE: ca.caCert, GOV_REDIS_TLS_CERT_FILE: client.cert },
      }),
      (err: Error & { code?: string }) =>
        err.code === 'GOV_ERR_TLS_CONFIG_INVALID' && /GOV_REDIS_TLS_KEY_FILE/.test(err.message),
    )
    await assert.rejects(
      startTestGateway({ plugins: [], env: { REDIS_URL: REDIS_URL, GOV_REDIS_TLS_CA_FILE: ca.caCert } }),
      (err: Error & { code?: string }) =>
        err.code === 'GOV_ERR_TLS_CONFIG_INVALID' && /not rediss:\/\//.test(err.message),
    )
    await assert.rejects(
      startTestGateway({
        plugins: [],
        env: { REDIS_URL: url, GOV_REDIS_TLS_CA_FILE: join(ca.dir, 'no-such-ca.crt') },
      }),
      (err: Error & { code?: string }) =>
        err.code === 'GOV_ERR_TLS_FILE_INVALID' &&
        /no-such-ca\.crt: cannot be read \(ENOENT\)/.test(err.message),
    )
    const mismatched = await checkRedis({
      redisUrl: url,
      production: false,
      timeoutMs: 10_000,
      env: { GOV_REDIS_TLS_CERT_FILE: client.cert, GOV_REDIS_TLS_KEY_FILE: ca.caKey },
    })
    assert.equal(mismatched.status, 'fail')
    assert.equal(mismatched.code, 'GOV_ERR_TLS_FILE_INVALID')
    assert.match(mismatched.detail, /does not belong to the client certificate/)
  })
})
