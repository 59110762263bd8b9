/**
 * `npm run bench:hot-parts`: CPU µs of single hot-path parts of gov, for one or
 * more builds of the host side by side in one process (rounds alternate the
 * builds, medians per build; steadier on a busy machine than whole calls):
 *
 * - `audit append`: seal one call record onto the chain (canonical JSON +
 *   SHA-256) and append it to the in-memory store (its stored copy), for the
 *   empty pipeline's record and for one with 11 decisions and 2 finding counts.
 * - `anthropic history`: `ConversationSessions.derive` of turn `--turns` of a
 *   conversation (each earlier turn seen before; a new user turn), on a freshly
 *   parsed body as gov has it — the body's `JSON.parse` timed apart and subtracted.
 * - `upstream call`: `UpstreamClient.send` of a ~1 KB chat body to a provider
 *   in this process answering ~1.2 KB of JSON, the answer read whole (the
 *   provider's own CPU is in the figure, the same for every build).
 *
 * Options: `--builds label=dir,…` (a host `dist/src` folder; default
 * `current=` this tree's `host/dist/src`), `--rounds` (7), `--n` (3 000 per part
 * and round), `--turns` (50).
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { buildPromptParts, promptText } from './prompts.js'
import { commitLabel, loadLabel } from './run-info.js'

const here = dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: `current=${join(here, '..', '..', '..', 'host', 'dist', 'src')}` },
    rounds: { type: 'string', default: '7' },
    n: { type: 'string', default: '3000' },
    turns: { type: 'string', default: '50' },
  },
})
const ROUNDS = Number(values.rounds)
const N = Number(values.n)
const TURNS = Number(values.turns)

type Part = () => unknown | Promise<unknown>

interface Build {
  label: string
  parts: Map<string, Part>
}

const prompts = buildPromptParts()

/** The provider of the `upstream call` part: reads the request, answers ~1.2 KB of JSON. */
const answerText = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  model: 'gpt-4o-mini',
  choices: [
    { index: 0, message: { role: 'assistant', content: promptText(prompts, 7) }, finish_reason: 'stop' },
  ],
  usage: { prompt_tokens: 250, completion_tokens: 250, total_tokens: 500 },
})
const provider = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(answerText),
    })
    res.end(answerText)
  })
})
// Idle between rounds for longer than Node's default 5 s: keep the connections (a close racing a send is ECONNRESET).
provider.keepAliveTimeout = 600_000
await new Promise<void>((done) => provider.listen(0, '127.0.0.1', done))
const providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`
const clients: { close(): Promise<void> }[] = []

function callRecord(decisions: number): Record<string, unknown> {
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    kind: 'call',
    actor: 'agent:bench',
    action: 'gateway.call',
    outcome: 'allowed',
    status: 200,
    agent_id: 'bench',
    session_id: null,
    pipeline_id: 'bench-empty',
    pipeline_version: 1,
    request_id: randomUUID(),
    token_id: randomUUID(),
    classification: 'public',
    detail: {
      vendor: 'openai',
      model: 'gpt-4o-mini',
      mode: 'enforce',
      chain: 'pipeline:bench-empty@1',
      request_sha256: 'ab'.repeat(32),
      duration_ms: 1.234,
      steps_run: decisions,
      decisions: Array.from({ length: decisions }, (_, i) => ({
        step: `step_${i}`,
        phase: 'request',
        verdict: 'continue',
        code: null,
        enforced: true,
        error: false,
        ms: 0.051,
      })),
      findings: decisions
        ? [
            { step: 'detect_pii', phase: 'request', type: 'EMAIL_ADDRESS', level: 'confidential', count: 2 },
            { step: 'scan_secrets', phase: 'request', type: 'API_KEY', level: 'secret', count: 1 },
          ]
        : [],
    },
  }
}

async function load(label: string, dir: string): Promise<Build> {
  const url = (file: string) => pathToFileURL(resolve(dir, file)).href
  const { sealRecords } = await import(url('audit/hash-chain.js'))
  const { MemoryStore } = await import(url('storage/memory-store.js'))
  const { ConversationSessions } = await import(url('gateway/conversation-sessions.js'))
  const { MemoryKv } = await import(url('kv/memory-kv.js'))
  const { UpstreamClient } = await import(url('upstream/upstream-client.js'))
  const upstream = new UpstreamClient({ timeoutMs: 60_000 })
  clients.push(upstream)
  const target = {
    name: 'bench',
    format: 'openai',
    baseUrl: providerUrl,
    path: '/v1/chat/completions',
    keyName: 'K',
  }
  const chatText = JSON.stringify({
    model: 'gpt-4o-mini',
    messages: [{ role: 'user', content: promptText(prompts, 3) }],
  })
  const store = new MemoryStore({ auditMax: 1000 })
  const append = (entry: Record<string, unknown>) =>
    store.appendAudit((head: unknown) => sealRecords(head, [entry]))
  const empty = callRecord(0)
  const standard = callRecord(11)
  // A conversation played turn by turn, as a client resends it: every earlier turn was derived and remembered.
  const sessions = new ConversationSessions(new MemoryKv())
  const system = 'You are a helpful assistant. Answer briefly and concretely.'
  const messages: Record<string, unknown>[] = []
  let n = 0
  for (let turn = 1; turn < TURNS; turn++) {
    messages.push({ role: 'user', content: promptText(prompts, n++) })
    const body = { model: 'claude-haiku-4-5', max_tokens: 512, system, messages: structuredClone(messages) }
    const session = await sessions.derive('bench', 'anthropic', body, randomUUID())
    const answer = { id: `msg_${turn}`, content: [{ type: 'text', text: promptText(prompts, n++) }] }
    await sessions.remember('bench', 'anthropic', body, answer, session, [])
    messages.push({ role: 'assistant', content: answer.content })
  }
  const texts = Array.from({ length: 64 }, () =>
    JSON.stringify({
      model: 'claude-haiku-4-5',
      max_tokens: 512,
      system,
      messages: [...messages, { role: 'user', content: promptText(prompts, n++) }],
    }),
  )
  let k = 0
  const parts = new Map<string, Part>([
    ['audit append, empty pipeline record', () => append(empty)],
    ['audit append, 11 decisions + 2 finding counts', () => append(standard)],
    [`anthropic turn ${TURNS}: JSON.parse of the body (not gov's part)`, () => JSON.parse(texts[k++ % 64]!)],
    [
      `anthropic turn ${TURNS}: JSON.parse + history derive`,
      () => sessions.derive('bench', 'anthropic', JSON.parse(texts[k++ % 64]!), 'r'),
    ],
    [
      'upstream call: send ~1 KB, read ~1.2 KB (client + in-process provider)',
      async () => {
        const answer = await upstream.send(
          target,
          { authorization: 'Bearer bench', 'content-type': 'application/json' },
          chatText,
        )
        if (answer.status !== 200) throw new Error(`provider answered ${answer.status}`)
      },
    ],
  ])
  return { label, parts }
}

async function time(part: Part): Promise<number> {
  for (let i = 0; i < 100; i++) await part()
  const before = process.cpuUsage()
  for (let i = 0; i < N; i++) await part()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / N
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const builds: Build[] = []
for (const spec of values.builds.split(',')) {
  const at = spec.indexOf('=')
  builds.push(await load(spec.slice(0, at), spec.slice(at + 1)))
}
const names = [...builds[0]!.parts.keys()]
const results = new Map<string, number[]>()
for (let round = 0; round < ROUNDS; round++) {
  for (const name of names) {
    for (const build of round % 2 ? [...builds].reverse() : builds) {
      const us = await time(build.parts.get(name)!)
      const key = `${name}\t${build.label}`
      results.set(key, [...(results.get(key) ?? []), us])
    }
  }
}
const lines = [
  `# gov hot-path parts, CPU µs per operation (bench:hot-parts), ${new Date().toISOString()}`,
  '',
  `Tree ${commitLabel()}; load ${loadLabel()}; ${ROUNDS} rounds of ${N} operations per part and build; median (min–max).`,
  '',
  `| part | ${builds.map((b) => b.label).join(' | ')} |`,
  `|---|${builds.map(() => '---:').join('|')}|`,
]
for (const name of names) {
  const cells = builds.map((b) => {
    const xs = results.get(`${name}\t${b.label}`)!
    return `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
  })
  lines.push(`| ${name} | ${cells.join(' | ')} |`)
}
console.log(lines.join('\n'))
for (const client of clients) await client.close()
provider.close()
