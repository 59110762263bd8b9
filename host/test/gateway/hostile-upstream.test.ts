/**
 * Adversarial review of the gateway's side of an upstream call: callers that
 * hang up while gov waits for the provider, while it holds the answer back for
 * checking and while it writes; many concurrent calls with some callers
 * aborting; request bodies sent slowly, empty, with a BOM, at and over the
 * body limit. Expected: the vendor's error format with a clear code, never a
 * crash or a hang, no provider request left open, an audit record for every
 * call that reached the provider, and a gateway that still answers afterwards.
 */
import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { CORE_VERSION, defineStep, type StepPlugin, Type, Verdicts } from '@gov/core'
import { readBody } from '../../src/http/body.js'
import { fixtureSteps } from '../../src/testing/fixture-steps.js'
import { onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import {
  answerBody,
  answerSse,
  PATHS,
  userDirective,
  VENDORS,
  type Vendor,
  vendorOfPath,
} from '../upstream/vendor-answers.js'

const MAX_BODY = 4096
const TEXT = 'answer text ✓ 日本語 🎉'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Poll `check` until it holds or `ms` passed; returns its last value. */
async function eventually<T>(check: () => Promise<T> | T, ok: (value: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const value = await check()
    if (ok(value) || Date.now() > end) return value
    await sleep(25)
  }
}

function requestBody(vendor: Vendor, directive: string, stream: boolean): Record<string, unknown> {
  if (vendor === 'responses') return { model: 'gpt-4o-mini', input: directive, stream }
  const messages = [{ role: 'user', content: directive }]
  if (vendor === 'anthropic') return { model: 'claude-sonnet-4-6', max_tokens: 256, messages, stream }
  return { model: 'gpt-4o-mini', messages, stream }
}

interface Provider {
  url: string
  /** Provider requests still open. */
  open: Set<ServerResponse>
  /** Provider requests that closed before their answer was written, per directive. */
  dropped: Map<string, number>
  seen: Map<string, number>
  close(): Promise<void>
}

/**
 * A provider driven by the user text: `slow:<ms>` answers after that long,
 * `trickle:<ms>` sends the stream's events spread over that long, `big:<n>`
 * answers with n characters of text; anything else answers at once.
 */
async function startProvider(): Promise<Provider> {
  const open = new Set<ServerResponse>()
  const dropped = new Map<string, number>()
  const seen = new Map<string, number>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => void answer(req, res, Buffer.concat(chunks)).catch(() => res.destroy()))
  })
  async function answer(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    const vendor = vendorOfPath(req.url)
    const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>
    const stream = body.stream === true
    const directive = userDirective(body)
    const [action, arg] = directive.split(':')
    seen.set(directive, (seen.get(directive) ?? 0) + 1)
    open.add(res)
    res.on('close', () => {
      open.delete(res)
      if (!res.writableFinished) dropped.set(directive, (dropped.get(directive) ?? 0) + 1)
    })
    const text = action === 'big' ? 'x'.repeat(Number(arg)) : TEXT
    const payload = stream ? answerSse(vendor, text) : JSON.stringify(answerBody(vendor, text))
    const type = stream ? 'text/event-stream; charset=utf-8' : 'application/json'
    if (action === 'slow') await sleep(Number(arg))
    if (res.destroyed) return
    if (action === 'trickle') {
      res.writeHead(200, { 'content-type': type })
      const events = payload.split(/(?<=\n\n)/)
      for (const event of events) {
        if (res.destroyed) return
        res.write(event)
        await sleep(Number(arg) / events.length)
      }
      res.end()
      return
    }
    res.writeHead(200, { 'content-type': type })
    res.end(payload)
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open,
    dropped,
    seen,
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** A response step that takes `ms` to judge the whole answer: the answer is held back meanwhile. */
function slowCheckStep(ms: number): StepPlugin {
  return defineStep({
    name: 'hx_slow_check',
    packageName: 'fixture:hx_slow_check',
    version: '0.0.0',
    core: `^${CORE_VERSION}`,
    description: 'judges the whole answer slowly',
    settings: Type.Object({}, { additionalProperties: false }),
    create: () => ({
      onBufferedResponse: async () => {
        await sleep(ms)
        return Verdicts.continue()
      },
    }),
  }) as StepPlugin
}

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

/**
 * A call over node:http. `hangUpAfterMs` destroys the request that long after
 * it was sent; `hangUpOn` when that promise settles; `hangUpAfterBytes` once
 * that many answer bytes arrived. Resolves
 * with the answer, or undefined when the caller hung up first.
 */
function rawCall(
  t: TestGateway,
  path: string,
  key: string,
  payload: Buffer | string | Buffer[],
  options: {
    hangUpAfterMs?: number
    hangUpOn?: Promise<unknown>
    hangUpAfterBytes?: number
    chunked?: boolean
    gapMs?: number
    timeoutMs?: number
  } = {},
): Promise<Raw | undefined> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
    }
    const parts = Array.isArray(payload) ? payload : [Buffer.from(payload)]
    if (!options.chunked) headers['content-length'] = String(parts.reduce((n, p) => n + p.length, 0))
    const req = request(`${t.url}${path}`, { method: 'POST', headers })
    let gone = false
    const hangUp = () => {
      gone = true
      req.destroy()
      resolve(undefined)
    }
    req.on('error', (err) => (gone ? undefined : reject(err)))
    const timeoutMs = options.timeoutMs ?? 10_000
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`the gateway did not answer within ${timeoutMs} ms`)),
    )
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        chunks.push(c)
        size += c.length
        if (options.hangUpAfterBytes !== undefined && size >= options.hangUpAfterBytes && !gone) hangUp()
      })
      res.on('end', () => {
        if (!gone)
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          })
      })
      res.on('error', (err) => (gone ? undefined : reject(err)))
    })
    if (options.hangUpAfterMs !== undefined) setTimeout(() => !gone && hangUp(), options.hangUpAfterMs)
    void options.hangUpOn?.finally(() => !gone && hangUp())
    void (async () => {
      for (const part of parts) {
        if (gone) return
        req.write(part)
        if (options.gapMs) await sleep(options.gapMs)
      }
      req.end()
    })()
  })
}

function parse(raw: Raw | undefined) {
  assert.ok(raw, 'an answer')
  return JSON.parse(raw.text)
}

function assertVendorError(vendor: Vendor, raw: Raw | undefined, status: number, code: string): void {
  assert.ok(raw, 'an answer')
  assert.equal(raw.status, status, raw.text)
  const body = parse(raw)
  if (vendor === 'anthropic') assert.equal(body.type, 'error', raw.text)
  assert.equal(typeof body.error.type, 'string', raw.text)
  assert.equal(body.error.code, code, raw.text)
}

describe('callers that hang up, race and send odd bodies', () => {
  let provider: Provider
  let t: TestGateway
  let agentNo = 0
  let slowKey = ''

  before(async () => {
    provider = await startProvider()
    t = await startTestGateway({
      plugins: [...fixtureSteps, slowCheckStep(1000)],
      env: {
        OPENAI_BASE_URL: `${provider.url}/v1`,
        ANTHROPIC_BASE_URL: provider.url,
        GOV_MAX_BODY_BYTES: String(MAX_BODY),
        GOV_STREAM_KEEPALIVE_MS: '60',
        GOV_UPSTREAM_TIMEOUT_MS: '5000',
      },
    })
    // Fixture steps only: the default preset's detectors would cost seconds of CPU per chain load.
    await t.createPipeline('light', 'standard', onlySteps('standard', { fx_pass: {} }))
    await t.createPipeline('slow-check', 'standard', onlySteps('standard', { hx_slow_check: {} }))
    slowKey = await t.createAgent('slow-checked', 'slow-check')
    // The first call of a chain loads its steps (seconds): not part of any case's timing.
    const warm = await t.createAgent('warm-up', 'light')
    for (const vendor of VENDORS) {
      for (const key of [warm, slowKey])
        await rawCall(t, PATHS[vendor], key, JSON.stringify(requestBody(vendor, `warm:${key}`, false)), {
          timeoutMs: 60_000,
        })
    }
  })
  after(async () => {
    await t.close()
    await provider.close()
  })

  async function agent(): Promise<{ id: string; key: string }> {
    const id = `caller-${++agentNo}`
    return { id, key: await t.createAgent(id, 'light') }
  }

  async function auditCount(agentId: string): Promise<number> {
    const res = await t.admin('GET', `/audit?agent_id=${agentId}&kind=call`)
    assert.equal(res.status, 200, res.text)
    return res.body.records.length
  }

  /** The caller hung up: the provider request of `directive` is dropped within `withinMs` and the call audited once. */
  async function droppedAndAudited(
    directive: string,
    agentId: string,
    withinMs: number,
    what: string,
  ): Promise<void> {
    const dropped = await eventually(
      () => provider.dropped.get(directive) ?? 0,
      (n) => n === 1,
      withinMs,
    )
    assert.equal(dropped, 1, what)
    assert.equal(
      await eventually(
        () => auditCount(agentId),
        (n) => n === 1,
      ),
      1,
      'one audit record',
    )
  }

  /** A normal call answers 200 with the text (the gateway and its pool are fine). */
  async function stillServes(vendor: Vendor, stream = false): Promise<void> {
    const who = await agent()
    const raw = await rawCall(t, PATHS[vendor], who.key, JSON.stringify(requestBody(vendor, 'ok', stream)))
    assert.equal(raw?.status, 200, raw?.text)
    assert.ok(raw?.text.includes(stream ? '日本語' : TEXT), raw?.text)
  }

  for (const vendor of VENDORS) {
    for (const stream of [false, true]) {
      const label = `${vendor}${stream ? ' streamed' : ''}`

      it(`${label}: a caller gone while gov waits for the provider drops the provider request and is audited`, async () => {
        const who = await agent()
        const directive = `slow:1500:${label}`
        const raw = await rawCall(
          t,
          PATHS[vendor],
          who.key,
          JSON.stringify(requestBody(vendor, directive, stream)),
          {
            hangUpAfterMs: 200,
          },
        )
        assert.equal(raw, undefined)
        await droppedAndAudited(
          directive,
          who.id,
          1000,
          'the provider request was dropped well before the provider answered',
        )
        await stillServes(vendor, stream)
      })

      it(`${label}: a caller gone while the answer is held back for checking is audited, gov carries on`, async () => {
        const directive = `ok:held:${label}:${agentNo}`
        const before = await auditCount('slow-checked')
        // The provider answers at once; the slow check holds the answer 1 s; the caller leaves once the
        // provider has seen the call (not after a fixed time: a loaded machine may not have forwarded it yet).
        const seen = eventually(
          () => provider.seen.get(directive) ?? 0,
          (n) => n > 0,
          10_000,
        )
        const raw = await rawCall(
          t,
          PATHS[vendor],
          slowKey,
          JSON.stringify(requestBody(vendor, directive, stream)),
          { hangUpOn: seen },
        )
        assert.equal(raw, undefined)
        assert.equal(provider.seen.get(directive), 1)
        assert.equal(
          await eventually(
            () => auditCount('slow-checked'),
            (n) => n === before + 1,
          ),
          before + 1,
          'one audit record',
        )
        await stillServes(vendor, stream)
      })

      if (stream) {
        it(`${label}: a caller gone after keep-alives of a held stream drops the provider stream`, async () => {
          const who = await agent()
          const directive = `trickle:2000:${label}`
          // Keep-alives every 60 ms open the stream; the caller leaves after the first bytes.
          const raw = await rawCall(
            t,
            PATHS[vendor],
            who.key,
            JSON.stringify(requestBody(vendor, directive, true)),
            {
              hangUpAfterBytes: 1,
            },
          )
          assert.equal(raw, undefined)
          await droppedAndAudited(directive, who.id, 1500, 'the provider stream was dropped before it ended')
          await stillServes(vendor, true)
        })
      }

      it(`${label}: a caller gone while gov writes a large answer does not hurt the gateway`, async () => {
        const who = await agent()
        const raw = await rawCall(
          t,
          PATHS[vendor],
          who.key,
          JSON.stringify(requestBody(vendor, 'big:3000000', stream)),
          { hangUpAfterBytes: 1 },
        )
        assert.equal(raw, undefined)
        assert.equal(
          await eventually(
            () => auditCount(who.id),
            (n) => n === 1,
          ),
          1,
          'one audit record',
        )
        await stillServes(vendor, stream)
      })
    }
  }

  it('60 concurrent calls, a third of the callers aborting: no provider request left open, the pool still serves', {
    timeout: 30_000,
  }, async () => {
    const who = await agent()
    const calls: Promise<Raw | undefined>[] = []
    for (let i = 0; i < 60; i++) {
      const vendor = VENDORS[i % 3] as Vendor
      const stream = i % 2 === 0
      const directive = `slow:${50 + ((i * 37) % 250)}:race-${i}`
      calls.push(
        rawCall(t, PATHS[vendor], who.key, JSON.stringify(requestBody(vendor, directive, stream)), {
          hangUpAfterMs: i % 3 === 0 ? (i * 13) % 200 : undefined,
        }),
      )
    }
    const results = await Promise.all(calls)
    for (const [i, raw] of results.entries()) {
      if (i % 3 === 0) continue
      assert.equal(raw?.status, 200, `call ${i}: ${raw?.text}`)
    }
    const open = await eventually(
      () => provider.open.size,
      (n) => n === 0,
      2000,
    )
    assert.equal(open, 0, 'no provider request left open')
    // Every call that reached the provider was audited.
    const reached = [...provider.seen.keys()].filter((d) => d.includes(':race-')).length
    const audited = await eventually(
      () => auditCount(who.id),
      (n) => n >= reached,
    )
    assert.ok(audited >= reached, `${audited} audit records for ${reached} calls that reached the provider`)
    const again = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        rawCall(
          t,
          PATHS[VENDORS[i % 3] as Vendor],
          who.key,
          JSON.stringify(requestBody(VENDORS[i % 3] as Vendor, 'ok', false)),
        ),
      ),
    )
    for (const raw of again) assert.equal(raw?.status, 200, raw?.text)
  })

  for (const vendor of VENDORS) {
    it(`${vendor}: a body sent in many tiny chunks is read whole`, { timeout: 20_000 }, async () => {
      const who = await agent()
      const body = Buffer.from(JSON.stringify(requestBody(vendor, 'ok 日本語 split ✓', false)))
      // One byte per chunk, so multi-byte characters are split too.
      const parts = Array.from({ length: body.length }, (_, i) => body.subarray(i, i + 1))
      const raw = await rawCall(t, PATHS[vendor], who.key, parts, { chunked: true, gapMs: 1 })
      assert.equal(raw?.status, 200, raw?.text)
      assert.equal(provider.seen.get('ok 日本語 split ✓') !== undefined, true)
    })

    it(`${vendor}: an empty body is 400 invalid_json in the vendor's format`, async () => {
      const who = await agent()
      assertVendorError(vendor, await rawCall(t, PATHS[vendor], who.key, ''), 400, 'invalid_json')
    })

    it(`${vendor}: a body with a UTF-8 BOM is answered (200) or refused as 400 invalid_json, never 5xx`, async (ctx) => {
      const who = await agent()
      const body = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify(requestBody(vendor, 'ok', false))),
      ])
      const raw = await rawCall(t, PATHS[vendor], who.key, body)
      ctx.diagnostic(`a body with a BOM: ${raw?.status}`)
      if (raw?.status !== 200) assertVendorError(vendor, raw, 400, 'invalid_json')
    })

    for (const chunked of [false, true]) {
      const how = chunked ? 'chunked' : 'with content-length'
      /** A request body of exactly `size` bytes. */
      const sized = (size: number) => {
        const base = Buffer.from(JSON.stringify(requestBody(vendor, 'ok', false))).length
        const body = requestBody(vendor, `ok${' '.repeat(size - base)}`, false)
        const bytes = Buffer.from(JSON.stringify(body))
        assert.equal(bytes.length, size)
        return chunked ? [bytes.subarray(0, 1000), bytes.subarray(1000)] : bytes
      }

      it(`${vendor}: a body of exactly GOV_MAX_BODY_BYTES (${how}) is answered`, async () => {
        const who = await agent()
        const raw = await rawCall(t, PATHS[vendor], who.key, sized(MAX_BODY), { chunked })
        assert.equal(raw?.status, 200, raw?.text)
      })

      it(`${vendor}: a body one byte over GOV_MAX_BODY_BYTES (${how}) is 413 request_too_large`, async () => {
        const who = await agent()
        const raw = await rawCall(t, PATHS[vendor], who.key, sized(MAX_BODY + 1), { chunked })
        assertVendorError(vendor, raw, 413, 'request_too_large')
        await stillServes(vendor)
      })
    }

    it(`${vendor}: a caller gone in the middle of its request body does not hurt the gateway`, async () => {
      const who = await agent()
      const body = Buffer.from(JSON.stringify(requestBody(vendor, 'ok', false)))
      const raw = await rawCall(t, PATHS[vendor], who.key, [body.subarray(0, 20), body.subarray(20)], {
        gapMs: 300,
        hangUpAfterMs: 100,
      })
      assert.equal(raw, undefined)
      await stillServes(vendor)
    })
  }
})

describe('readBody on a request whose caller is already gone', () => {
  it('rejects instead of waiting forever', async () => {
    let outcome: Promise<string> | undefined
    const server = createServer((req) => {
      // The handler reaches readBody only after the caller hung up (an await before it, e.g. a key lookup).
      req.socket.once('close', () =>
        setTimeout(() => {
          outcome = Promise.race([
            readBody(req, 1024).then(
              () => 'resolved',
              () => 'rejected',
            ),
            sleep(500).then(() => 'pending'),
          ])
        }, 20),
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const req = request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      method: 'POST',
      headers: { 'content-length': '100' },
    })
    req.on('error', () => {})
    req.write('{"partial": ')
    await sleep(50)
    req.destroy()
    const result = await eventually(
      () => outcome,
      (o) => o !== undefined,
    )
    server.close()
    assert.notEqual(await result, 'pending', 'readBody neither resolved nor rejected')
  })
})
