/**
 * `npm run bench:ttfb`: time to first byte of a streamed answer from a slow
 * provider — the provider called directly, gov holding the stream back
 * (`stream_release: held`, the default) and gov releasing it in windows
 * (`stream_release: windowed`), both on preset `standard`. Sequential calls,
 * one at a time: this measures latency, not throughput.
 *
 * Options: `--calls N` (default 10), `--pieces N` text deltas per answer
 * (default 60), `--gap MS` between two deltas (default 20), `--window N`
 * characters (default: gov's 160).
 */
import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startTestGateway } from '@gov/host/testing'

const here = dirname(fileURLToPath(import.meta.url))
const resultsDir = join(here, '..', '..', 'results')

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '10' },
    pieces: { type: 'string', default: '60' },
    gap: { type: 'string', default: '20' },
    window: { type: 'string' },
  },
})
const CALLS = Number(values.calls)
const PIECES = Number(values.pieces)
const GAP_MS = Number(values.gap)

const WORDS = ['the', 'report', 'shows', 'steady', 'growth', 'across', 'all', 'regions', 'this', 'quarter']
/** One delta of ordinary text: a few words, about what a provider sends per token group. */
function piece(i: number): string {
  return `${WORDS[i % WORDS.length]} ${WORDS[(i * 7 + 3) % WORDS.length]} `
}

/** A provider that streams a chat completion of `PIECES` deltas, `GAP_MS` apart. */
async function startSlowProvider(): Promise<{ url: string; close: () => Promise<void> }> {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-ttfb', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(chunk({ role: 'assistant', content: '' }))
      for (let i = 0; i < PIECES; i++) {
        await new Promise((r) => setTimeout(r, GAP_MS))
        res.write(chunk({ content: piece(i) }))
      }
      res.write(chunk({}, 'stop'))
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, close: () => new Promise((r) => server.close(() => r())) }
}

interface Timing {
  firstByte: number
  firstText: number
  total: number
}

/** One streamed call: ms to the first body byte, to the first text delta, and to the end. */
async function timeCall(url: string, headers: Record<string, string>): Promise<Timing> {
  const started = performance.now()
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'Summarise the quarterly report.' }],
    }),
  })
  if (res.status !== 200 || !res.body) throw new Error(`${url} answered ${res.status}: ${await res.text()}`)
  const decoder = new TextDecoder()
  let firstByte = 0
  let firstText = 0
  let seen = ''
  for await (const bytes of res.body) {
    firstByte ||= performance.now() - started
    if (!firstText) {
      seen += decoder.decode(bytes as Uint8Array, { stream: true })
      if (/"content":"[^"]/.test(seen)) firstText = performance.now() - started
    }
  }
  return { firstByte, firstText, total: performance.now() - started }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

function summarise(timings: Timing[], key: keyof Timing): string {
  const sorted = timings.map((t) => t[key]).sort((a, b) => a - b)
  return `${(percentile(sorted, 50) / 1000).toFixed(3)} s (p90 ${(percentile(sorted, 90) / 1000).toFixed(3)})`
}

async function main(): Promise<void> {
  const provider = await startSlowProvider()
  const t = await startTestGateway({ plugins: [], env: { OPENAI_BASE_URL: `${provider.url}/v1` } })
  const suffix = randomBytes(4).toString('hex')
  const windowChars = values.window ? { stream_window_chars: Number(values.window) } : {}
  const keys: Record<string, string> = {}
  for (const release of ['held', 'windowed'] as const) {
    const id = `ttfb-${release}-${suffix}`
    const res = await t.admin('POST', '/pipelines', {
      pipeline_id: id,
      preset: 'standard',
      content: { stream_release: release, ...windowChars },
    })
    if (res.status !== 201) throw new Error(`pipeline: ${res.status} ${res.text}`)
    keys[release] = await t.createAgent(`ttfb-${release}-${suffix}`, id)
  }
  const targets: { name: string; url: string; headers: Record<string, string> }[] = [
    { name: 'direct', url: provider.url, headers: {} },
    { name: 'gov standard, held', url: t.url, headers: { authorization: `Bearer ${keys.held}` } },
    { name: 'gov standard, windowed', url: t.url, headers: { authorization: `Bearer ${keys.windowed}` } },
  ]
  const rows: string[] = []
  try {
    for (const target of targets) {
      await timeCall(target.url, target.headers) // warm-up (models load, pools connect)
      const timings: Timing[] = []
      for (let i = 0; i < CALLS; i++) timings.push(await timeCall(target.url, target.headers))
      rows.push(
        `| ${target.name} | ${summarise(timings, 'firstByte')} | ${summarise(timings, 'firstText')} | ${summarise(timings, 'total')} |`,
      )
    }
  } finally {
    await t.close()
    await provider.close()
  }
  const streamMs = PIECES * GAP_MS
  const report = [
    `Time to first byte of a streamed answer (${PIECES} deltas ${GAP_MS} ms apart, ~${(streamMs / 1000).toFixed(1)} s of provider stream; ${CALLS} sequential calls per target, median and p90)`,
    '',
    '| target | first byte | first text | whole answer |',
    '| ------ | ---------- | ---------- | ------------ |',
    ...rows,
    '',
  ].join('\n')
  process.stdout.write(report)
  await mkdir(resultsDir, { recursive: true })
  await writeFile(join(resultsDir, 'ttfb-latest.md'), report)
}

await main()
