import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { MockResponse } from '../../src/testing/mock-provider.js'
import {
  chatBody,
  messagesBody,
  onlySteps,
  startTestGateway,
  type TestGateway,
} from '../../src/testing/test-gateway.js'
import { loadTranscripts, type Transcript } from '../../src/testing/transcripts.js'
import { mutate, Rng, randomString } from './fuzz-gen.js'
import { fuzzSeed } from './fuzz-runner.js'

const CASES = Number(process.env.GOV_FUZZ_ANSWER_CASES ?? 300)

/** Take a recorded stream apart: mutate one event's JSON, drop, repeat or swap events, cut or garble the text. */
function mutateSse(rng: Rng, sse: string): string {
  const events = sse.split('\n\n').filter(Boolean)
  switch (rng.int(6)) {
    case 0: {
      const k = rng.int(events.length)
      events[k] = (events[k] as string).replace(/^data: (.*)$/m, (_line, json: string) => {
        try {
          return `data: ${JSON.stringify(mutate(rng, JSON.parse(json)))}`
        } catch {
          return `data: ${json}`
        }
      })
      break
    }
    case 1:
      events.splice(rng.int(events.length), 1)
      break
    case 2:
      events.splice(rng.int(events.length), 0, rng.pick(events) as string)
      break
    case 3: {
      const a = rng.int(events.length)
      const b = rng.int(events.length)
      ;[events[a], events[b]] = [events[b] as string, events[a] as string]
      break
    }
    case 4:
      return sse.slice(0, rng.int(sse.length))
    default:
      events.splice(rng.int(events.length), 0, `data: ${randomString(rng)}`)
  }
  return `${events.join('\n\n')}\n\n`
}

function answerCase(rng: Rng, transcript: Transcript): MockResponse {
  const mislabel = rng.chance(0.05)
    ? { headers: { 'content-type': rng.pick(['text/event-stream', 'application/json', 'text/plain']) } }
    : {}
  if (transcript.sse !== undefined && (transcript.json === undefined || rng.chance(0.5))) {
    return { sse: mutateSse(rng, transcript.sse), ...mislabel }
  }
  const body = structuredClone(transcript.json?.body ?? {})
  let mutated: unknown = body
  for (let m = 1 + rng.int(3); m > 0; m--) mutated = mutate(rng, mutated)
  return { json: mutated, ...mislabel }
}

describe('fuzzed provider answers never get a 5xx from gov other than upstream_* and circuit_open', () => {
  let t: TestGateway
  let light: string
  let standard: string
  let transcripts: Transcript[]

  before(async () => {
    t = await startTestGateway()
    await t.createPipeline('answers', 'standard', onlySteps('standard', { fx_pass: {}, fx_edit: {} }))
    light = await t.createAgent('fuzz-answers', 'answers')
    standard = await t.createAgent('fuzz-answers-standard')
    // Only answers a 200 carries: the error transcripts are passed on as they are anyway.
    transcripts = [...(await loadTranscripts()).values()].filter((tr) => !tr.name.includes('error'))
  })
  after(() => t.close())

  it(`${CASES} seeded answers (seed ${fuzzSeed})`, async (ctx) => {
    const rng = new Rng(fuzzSeed ^ 0x5e)
    const failures: string[] = []
    const codes = new Map<string, number>()
    for (let i = 0; i < CASES; i++) {
      const transcript = rng.pick(transcripts)
      const vendor = transcript.name.split('/')[0]
      t.mock.enqueue(answerCase(rng, transcript))
      const stream = { stream: rng.chance(0.5) }
      // A prompt of its own per case: dedupe must not coalesce or replay one case's answer into another.
      const prompt = `hello ${i}`
      const res =
        vendor === 'openai'
          ? await t.call('/v1/chat/completions', chatBody(prompt, stream), {
              key: rng.chance(0.8) ? light : standard,
            })
          : await t.call('/v1/messages', messagesBody(prompt, stream), {
              key: rng.chance(0.8) ? light : standard,
            })
      const code = String(res.body?.error?.code ?? '')
      codes.set(`${res.status} ${code}`, (codes.get(`${res.status} ${code}`) ?? 0) + 1)
      // A broken provider is 502/504 upstream_*; after a run of them break_circuit answers 503 circuit_open.
      const upstreamFault =
        ((res.status === 502 || res.status === 504) && code.startsWith('upstream_')) ||
        (res.status === 503 && code === 'circuit_open')
      if (res.status >= 500 && !upstreamFault)
        failures.push(`#${i} ${transcript.name}: ${res.status} ${res.text.slice(0, 200)}`)
    }
    assert.deepEqual(failures, [], `reproduce with GOV_FUZZ_SEED=${fuzzSeed}`)
    const seen = JSON.stringify([...codes])
    ctx.diagnostic(`answers: ${seen}`)
    assert.ok((codes.get('200 ') ?? 0) > CASES / 10, `too few answers passed: ${seen}`)
    assert.ok(
      [...codes.keys()].some((c) => c.startsWith('502 upstream_')),
      `no broken answer refused: ${seen}`,
    )
  })
})
