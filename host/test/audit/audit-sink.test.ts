/**
 * The SIEM sinks against real local receivers: an HTTP server that fails and
 * then recovers, a UDP socket and a TCP socket for syslog, and a gateway whose
 * calls keep working while its webhook is down.
 */
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { createSocket } from 'node:dgram'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { AuditSink } from '../../src/audit/audit-sink.js'
import { AuditTrail } from '../../src/audit/audit-trail.js'
import {
  MAX_SYSLOG_BYTES,
  SyslogTransport,
  syslogMessage,
  WebhookTransport,
} from '../../src/audit/sink-transports.js'
import { TOKENS } from '../../src/container.js'
import { GovMetrics } from '../../src/metrics/metrics.js'
import { createStore } from '../../src/storage/create-store.js'
import { MemoryStore } from '../../src/storage/memory-store.js'
import type { AuditRecord, Store } from '../../src/storage/store.js'
import { type MockProvider, startMockProvider } from '../../src/testing/mock-provider.js'
import { chatBody, startTestGateway } from '../../src/testing/test-gateway.js'
import {
  dropSchema,
  skipWithoutDatabase,
  TEST_DATABASE_URL,
  uniqueSchema,
} from '../storage/postgres-schema.js'
import { callEntryOf } from './audit-fixtures.js'

const SECRET = 'webhook-test-secret'

/** An HTTP receiver answering `failures` requests with 503, then 200; keeps the bodies it took. */
async function receiver(failures: number) {
  const received: { records: AuditRecord[]; signature: string; timestamp: string; body: string }[] = []
  let attempts = 0
  let failLeft = failures
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      attempts += 1
      if (failLeft > 0) {
        failLeft -= 1
        res.writeHead(503).end()
        return
      }
      received.push({
        records: (JSON.parse(body) as { records: AuditRecord[] }).records,
        signature: String(req.headers['x-gov-signature']),
        timestamp: String(req.headers['x-gov-timestamp']),
        body,
      })
      res.writeHead(204).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/siem`
  return {
    url,
    received,
    attempts: () => attempts,
    failNext(n: number) {
      failLeft = n
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

function counterValues(metrics: GovMetrics) {
  return async () => {
    const text = await metrics.registry.metrics()
    const value = (result: string) =>
      Number(
        text.match(
          new RegExp(`gov_audit_sink_records_total\\{sink="webhook",result="${result}"\\} (\\d+)`),
        )?.[1] ?? 0,
      )
    return { sent: value('sent'), failed: value('failed'), dropped: value('dropped') }
  }
}

describe('audit sinks', () => {
  it('delivers every record once the failing webhook recovers, in order, signed', async () => {
    const siem = await receiver(3)
    const store = new MemoryStore()
    const trail = new AuditTrail(store)
    const metrics = new GovMetrics()
    const counter = metrics.counter('gov_audit_sink_records_total', 'test', ['sink', 'result'])
    const sink = new AuditSink({
      transport: new WebhookTransport(siem.url, SECRET, 2000),
      store,
      counter,
      batch: 10,
      minBackoffMs: 20,
      maxBackoffMs: 100,
    })
    const stop = trail.onCommitted((records) => sink.enqueue(records))
    try {
      const started = performance.now()
      const written = await Promise.all(Array.from({ length: 25 }, () => trail.append(callEntryOf())))
      const appendMs = performance.now() - started
      await sink.drained()
      const seqs = siem.received.flatMap((r) => r.records.map((x) => x.seq))
      assert.deepEqual(
        seqs,
        written.map((r) => r.seq).sort((a, b) => a - b),
        'each record once, in seq order',
      )
      assert.ok(siem.attempts() >= 4, 'the three refusals were retried')
      for (const r of siem.received) {
        assert.equal(
          r.signature,
          `sha256=${createHmac('sha256', SECRET).update(`${r.timestamp}.${r.body}`).digest('hex')}`,
        )
        assert.ok(r.records.length <= 10, 'batches respect GOV_AUDIT_SINK_BATCH')
      }
      assert.deepEqual(
        siem.received[0]!.records[0],
        written.find((r) => r.seq === 1),
        'records go out exactly as hashed',
      )
      const counts = await counterValues(metrics)()
      assert.equal(counts.sent, 25)
      assert.ok(counts.failed >= 3, `failed attempts counted (${counts.failed})`)
      assert.equal(sink.cursor, 25)
      assert.ok(
        appendMs < 2000,
        `appends were not held up by the failing receiver (${appendMs.toFixed(0)} ms)`,
      )
    } finally {
      stop()
      await sink.close()
      await siem.close()
    }
  })

  it('keeps a bounded queue while the receiver is down and re-reads the dropped range from the store', async () => {
    const siem = await receiver(1_000_000)
    const store = new MemoryStore()
    const trail = new AuditTrail(store)
    const metrics = new GovMetrics()
    const counter = metrics.counter('gov_audit_sink_records_total', 'test', ['sink', 'result'])
    const sink = new AuditSink({
      transport: new WebhookTransport(siem.url, undefined, 2000),
      store,
      counter,
      batch: 5,
      backlog: 8,
      minBackoffMs: 20,
      maxBackoffMs: 50,
    })
    trail.onCommitted((records) => sink.enqueue(records))
    try {
      for (let i = 0; i < 30; i++) await trail.append(callEntryOf())
      assert.ok(sink.pending >= 30 - 5, `queue plus gap hold what is unsent (${sink.pending})`)
      const counts = await counterValues(metrics)()
      assert.ok(counts.dropped >= 20, `records pushed out of the full queue are counted (${counts.dropped})`)
      siem.failNext(0)
      await sink.drained()
      const seqs = siem.received.flatMap((r) => r.records.map((x) => x.seq))
      assert.deepEqual(
        [...new Set(seqs)].sort((a, b) => a - b),
        Array.from({ length: 30 }, (_, i) => i + 1),
        'nothing lost: the dropped range came back from the store',
      )
      assert.equal(seqs.length, 30, 'and nothing twice')
    } finally {
      await sink.close()
      await siem.close()
    }
  })

  it('sends RFC 5424 messages over UDP', async () => {
    const socket = createSocket('udp4')
    socket.bind(0, '127.0.0.1')
    await once(socket, 'listening')
    const messages: string[] = []
    socket.on('message', (m) => messages.push(m.toString('utf8')))
    const store = new MemoryStore()
    const trail = new AuditTrail(store)
    const transport = new SyslogTransport(`udp://127.0.0.1:${socket.address().port}`, 2000)
    const sink = new AuditSink({ transport, store, minBackoffMs: 20 })
    trail.onCommitted((records) => sink.enqueue(records))
    try {
      const written = [
        await trail.append(callEntryOf({ outcome: 'allowed' })),
        await trail.append(callEntryOf({ outcome: 'blocked', status: 403 })),
      ]
      await sink.drained()
      for (let i = 0; i < 50 && messages.length < 2; i++) await new Promise((r) => setTimeout(r, 10))
      assert.equal(messages.length, 2)
      const rfc5424 =
        /^<(\d+)>1 (\S+) (\S+) gov (\d+) (\S+) \[gov seq="(\d+)" outcome="(\w+)" hash="([0-9a-f]{64})"\] (\{.*\})$/
      for (const [i, message] of messages.entries()) {
        const m = message.match(rfc5424)
        assert.ok(m, message.slice(0, 200))
        assert.equal(
          Number(m[1]),
          13 * 8 + (i === 0 ? 6 : 4),
          'facility log audit; info, then warning for a block',
        )
        assert.equal(m[2], written[i]!.time)
        assert.equal(m[5], 'gateway.call')
        assert.equal(Number(m[6]), written[i]!.seq)
        assert.deepEqual(JSON.parse(m[9]!), written[i])
      }
    } finally {
      await sink.close()
      socket.close()
    }
  })

  it('sends a record too big for a datagram as a stub naming it', () => {
    const record = {
      ...callEntryOf({ detail: { big: 'x'.repeat(70_000) } }),
      seq: 9,
      prev_hash: '0'.repeat(64),
      hash: 'a'.repeat(64),
    }
    const message = syslogMessage(record)
    assert.ok(Buffer.byteLength(message) <= MAX_SYSLOG_BYTES)
    assert.deepEqual(JSON.parse(message.slice(message.indexOf('{'))), {
      seq: 9,
      id: record.id,
      hash: record.hash,
      truncated: true,
    })
  })

  it('sends octet-counted RFC 5424 frames over TCP, on a new connection after the receiver dropped one', async () => {
    let data = ''
    const connections: Socket[] = []
    const server = createTcpServer((socket) => {
      connections.push(socket)
      socket.setEncoding('utf8')
      socket.on('data', (c) => {
        data += c
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const port = (server.address() as AddressInfo).port
    const store = new MemoryStore()
    const trail = new AuditTrail(store)
    const sink = new AuditSink({
      transport: new SyslogTransport(`tcp://127.0.0.1:${port}`, 2000),
      store,
      minBackoffMs: 20,
      maxBackoffMs: 50,
    })
    trail.onCommitted((records) => sink.enqueue(records))
    try {
      const written = await Promise.all([1, 2, 3].map(() => trail.append(callEntryOf())))
      await sink.drained()
      for (let i = 0; i < 50 && !data.includes(`seq="3"`); i++) await new Promise((r) => setTimeout(r, 10))
      // The receiver drops the connection; the next records go over a new one.
      connections[0]!.destroy()
      await new Promise((r) => setTimeout(r, 100))
      written.push(await trail.append(callEntryOf()), await trail.append(callEntryOf()))
      await sink.drained()
      for (let i = 0; i < 100 && !data.includes(`seq="5"`); i++) await new Promise((r) => setTimeout(r, 10))
      assert.equal(connections.length, 2)
      const frames: string[] = []
      for (let rest = data; rest.length > 0; ) {
        const space = rest.indexOf(' ')
        const length = Number(rest.slice(0, space))
        const bytes = Buffer.from(rest.slice(space + 1), 'utf8')
        frames.push(bytes.subarray(0, length).toString('utf8'))
        rest = bytes.subarray(length).toString('utf8')
      }
      assert.deepEqual(
        frames,
        written.sort((a, b) => a.seq - b.seq).map((r) => syslogMessage(r)),
      )
    } finally {
      await sink.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe('audit sinks of replicas on one PostgreSQL schema', { skip: skipWithoutDatabase }, () => {
  const url = TEST_DATABASE_URL!
  const schema = uniqueSchema('sinks')
  const stores: Store[] = []
  after(async () => {
    for (const s of stores) await s.close()
    await dropSchema(url, schema)
  })

  it('each replica forwards what it wrote: the receiver gets every record once', async () => {
    const siem = await receiver(0)
    for (let i = 0; i < 2; i++) {
      const store = createStore({ databaseUrl: url, schema })
      await store.init()
      stores.push(store)
    }
    const sinks = stores.map(
      (store) => new AuditSink({ transport: new WebhookTransport(siem.url, SECRET, 2000), store, batch: 7 }),
    )
    const trails = stores.map((store, i) => {
      const trail = new AuditTrail(store)
      trail.onCommitted((records) => sinks[i]!.enqueue(records))
      return trail
    })
    try {
      await Promise.all(
        trails.flatMap((trail, w) =>
          Array.from({ length: 40 }, () => trail.append(callEntryOf({ agent_id: `replica-${w}` }))),
        ),
      )
      await Promise.all(sinks.map((s) => s.drained()))
      const seqs = siem.received.flatMap((r) => r.records.map((x) => x.seq)).sort((a, b) => a - b)
      assert.deepEqual(
        seqs,
        Array.from({ length: 80 }, (_, i) => i + 1),
      )
    } finally {
      await Promise.all(sinks.map((s) => s.close()))
      await siem.close()
    }
  })
})

describe('audit sinks in a gateway', () => {
  let mock: MockProvider
  before(async () => {
    mock = await startMockProvider()
  })
  after(() => mock.close())

  it('answers calls while the webhook fails, and forwards them once it recovers', async () => {
    const siem = await receiver(2)
    const gw = await startTestGateway({
      mock,
      env: {
        GOV_AUDIT_WEBHOOK_URL: siem.url,
        GOV_AUDIT_WEBHOOK_SECRET: SECRET,
        GOV_AUDIT_SINK_TIMEOUT_MS: '1000',
      },
    })
    try {
      const key = await gw.createAgent(`sink-${process.pid}`)
      for (let i = 0; i < 5; i++) {
        const res = await gw.call('/v1/chat/completions', chatBody(`hello ${i}`), { key })
        assert.equal(res.status, 200, 'a failing sink never fails a call')
      }
      const evidence = gw.gateway.container.resolve<{ sinks: AuditSink[] }>(TOKENS.Evidence)
      assert.equal(evidence.sinks.length, 1)
      await evidence.sinks[0]!.drained()
      const records = siem.received.flatMap((r) => r.records)
      const seqs = records.map((r) => r.seq)
      assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6], 'agent.create and five calls, in order')
      assert.deepEqual(
        records.map((r) => r.action),
        ['agent.create', ...Array(5).fill('gateway.call')],
      )
      const metrics = await (
        await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer test-admin-key' } })
      ).text()
      assert.match(metrics, /gov_audit_sink_records_total\{sink="webhook",result="sent"\} 6/)
      assert.match(metrics, /gov_audit_sink_records_total\{sink="webhook",result="failed"\} [1-9]/)
    } finally {
      await gw.close()
      await siem.close()
    }
  })
})
