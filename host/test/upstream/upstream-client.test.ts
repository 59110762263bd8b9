import assert from 'node:assert/strict'
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { GovError } from '@gov/core'
import type { Provider } from '../../src/upstream/providers.js'
import { UpstreamClient } from '../../src/upstream/upstream-client.js'

type Behaviour = (res: ServerResponse) => void

/** A provider on port 0 whose answer is chosen by the request path. */
let requests = 0
let lastRequestBody = ''

async function startProvider(routes: Record<string, Behaviour>): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    requests++
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      lastRequestBody = Buffer.concat(chunks).toString()
      routes[req.url ?? '']?.(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

/** One small chunk every `everyMs`, `count` times: never idle, slow in total. */
function trickle(everyMs: number, count: number): Behaviour {
  return (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    let sent = 0
    const timer = setInterval(() => {
      if (res.destroyed || sent++ >= count) {
        clearInterval(timer)
        res.end()
        return
      }
      res.write('data: {}\n\n')
    }, everyMs)
    res.on('close', () => clearInterval(timer))
  }
}

function provider(url: string, path: string): Provider {
  return { name: 'test', format: 'openai', baseUrl: url, path, keyName: 'OPENAI_API_KEY' }
}

async function assertRejects(promise: Promise<unknown>, code: string, status: number) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof GovError, `expected a GovError, got ${String(error)}`)
    assert.equal(error.code, code)
    assert.equal(error.status, status)
    return true
  })
}

const MiB = 1024 * 1024

describe('UpstreamClient deadline and answer cap', () => {
  let server: Server
  let url: string
  // The deadline tests use a short deadline; the others a long one, so a loaded machine cannot turn them into timeouts.
  const quick = new UpstreamClient({ timeoutMs: 400 })
  const client = new UpstreamClient({ timeoutMs: 60_000, maxAnswerBytes: MiB })

  before(async () => {
    ;({ server, url } = await startProvider({
      // 40 chunks 100 ms apart: 4 s in all, never 400 ms idle.
      '/trickle': trickle(100, 40),
      '/small': (res) => res.end('{"ok":true}'),
      '/sse': (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('data: 1\n\n')
        setTimeout(() => res.end('data: 2\n\n'), 20)
      },
      '/sse-error': (res) => {
        res.writeHead(500, { 'content-type': 'text/event-stream' })
        res.end('data: no\n\n')
      },
      '/at-limit': (res) => res.end(Buffer.alloc(MiB, 0x61)),
      '/chunked-large': (res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
        for (let i = 0; i < 8; i++) res.write(Buffer.alloc(MiB / 2, 0x61))
        res.end()
      },
      '/declared-large': (res) => {
        res.writeHead(200, { 'content-length': String(40 * MiB) })
        res.write('{')
      },
    }))
  })
  after(async () => {
    await Promise.all([client.close(), quick.close()])
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('answers a provider that keeps trickling past the deadline with 504 upstream_timeout', async () => {
    // With an idle timeout this call succeeded after 4 s.
    await assertRejects(quick.send(provider(url, '/trickle'), {}, '{}'), 'upstream_timeout', 504)
  })

  it('reads an answer within the deadline and the cap', async () => {
    const res = await client.send(provider(url, '/small'), {}, '{}')
    assert.equal(res.status, 200)
    assert.equal(res.body.toString(), '{"ok":true}')
    const full = await client.send(provider(url, '/at-limit'), {}, '{}')
    assert.equal(full.body.length, MiB)
  })

  it('cuts off a chunked answer over the cap with 502 upstream_answer_too_large', async () => {
    await assertRejects(
      client.send(provider(url, '/chunked-large'), {}, '{}'),
      'upstream_answer_too_large',
      502,
    )
  })

  it('refuses a declared length over the cap before reading it', async () => {
    await assertRejects(
      client.send(provider(url, '/declared-large'), {}, '{}'),
      'upstream_answer_too_large',
      502,
    )
  })

  it('reports a caller that hung up as 499 client_closed, not as a timeout', async () => {
    const abort = new AbortController()
    const sent = client.send(provider(url, '/trickle'), {}, '{}', abort.signal)
    setImmediate(() => abort.abort())
    await assertRejects(sent, 'client_closed', 499)
  })

  it('passes chunks of a 2xx event stream to onStreamChunk as they arrive, and sets content-length', async () => {
    const seen: string[] = []
    const headers: Record<string, string> = {}
    const res = await client.send(provider(url, '/sse'), headers, '{"x":"é"}', undefined, (chunk) =>
      seen.push(chunk.toString()),
    )
    assert.equal(res.status, 200)
    assert.equal(res.contentType, 'text/event-stream')
    assert.equal(seen.join(''), 'data: 1\n\ndata: 2\n\n')
    assert.equal(res.body.toString(), seen.join(''))
    assert.equal(headers['content-length'], String(Buffer.byteLength('{"x":"é"}')))
    assert.equal(lastRequestBody, '{"x":"é"}')
  })

  it('does not pass the chunks of an error answer to onStreamChunk', async () => {
    const seen: Buffer[] = []
    const res = await client.send(provider(url, '/sse-error'), {}, '{}', undefined, (chunk) =>
      seen.push(chunk),
    )
    assert.equal(res.status, 500)
    assert.equal(res.body.toString(), 'data: no\n\n')
    assert.equal(seen.length, 0)
  })

  it('answers a caller that was gone before the call 499 client_closed, sending nothing', async () => {
    const abort = new AbortController()
    abort.abort()
    const before = requests
    await assertRejects(client.send(provider(url, '/small'), {}, '{}', abort.signal), 'client_closed', 499)
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(requests, before)
  })

  it('answers a call stopped while it waits for a connection at once, and never sends it', async () => {
    const single = new UpstreamClient({ timeoutMs: 1_500, connections: 1 })
    try {
      const busy = single.send(provider(url, '/trickle'), {}, '{}')
      busy.catch(() => {})
      await new Promise((resolve) => setTimeout(resolve, 50))
      const before = requests
      const abort = new AbortController()
      const queued = single.send(provider(url, '/small'), {}, '{}', abort.signal)
      setTimeout(() => abort.abort(), 20)
      const started = performance.now()
      await assertRejects(queued, 'client_closed', 499)
      // The first call holds the only connection until its deadline (1.5 s): the answer did not wait for it.
      assert.ok(performance.now() - started < 1000)
      assert.equal(requests, before)
    } finally {
      await single.close().catch(() => {})
    }
  })

  it('reports a closed port as 502 upstream_unreachable', async () => {
    const closed = await startProvider({})
    const closedUrl = closed.url
    await new Promise((resolve) => closed.server.close(resolve))
    await assertRejects(client.send(provider(closedUrl, '/x'), {}, '{}'), 'upstream_unreachable', 502)
  })
})
