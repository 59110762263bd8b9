import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import {
  onlySteps,
  startTestGateway,
  TEST_ADMIN_KEY,
  type TestGateway,
} from '../../src/testing/test-gateway.js'
import { anthropicBody, brokenText, headerValue, mutate, openAiBody, Rng, responsesBody } from './fuzz-gen.js'
import { type FuzzCase, fuzzSeed, runCases } from './fuzz-runner.js'

/** Cases per endpoint: thousands in all, a few seconds on two cores. */
const CASES = Number(process.env.GOV_FUZZ_CASES ?? 600)

describe('fuzzed model calls never get a 5xx from gov', () => {
  let t: TestGateway
  const keys: string[] = []
  let fast = ''

  before(async () => {
    // A small body cap makes the oversize cases cheap.
    t = await startTestGateway({ env: { GOV_MAX_BODY_BYTES: String(256 * 1024) } })
    await t.admin('POST', '/pipelines', {
      pipeline_id: 'fuzz-open',
      preset: 'standard',
      allow_flags: ['mode', 'pii'],
      content: { media: 'refuse', unknown_blocks: 'pass' },
    })
    // Most cases run a light pipeline so thousands fit in seconds; the rest run the real detectors.
    await t.createPipeline(
      'fuzz-light',
      'standard',
      onlySteps('standard', { fx_pass: {}, fx_edit: {}, fx_block: {} }),
    )
    fast = await t.createAgent('fuzz-light', 'fuzz-light')
    keys.push(fast, await t.createAgent('fuzz-default'), await t.createAgent('fuzz-open', 'fuzz-open'))
    // Load the detectors before the clock of the first case starts.
    await t.call(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] },
      { key: keys[1] },
    )
  })
  after(() => t.close())

  for (const [path, build] of [
    ['/v1/chat/completions', openAiBody],
    ['/v1/messages', anthropicBody],
    ['/v1/responses', responsesBody],
  ] as const) {
    it(`${path}: ${CASES} seeded cases (seed ${fuzzSeed})`, async (ctx) => {
      const rng = new Rng(fuzzSeed + path.length)
      const cases: FuzzCase[] = []
      for (let i = 0; i < CASES; i++) {
        let body: unknown = build(rng)
        for (let m = rng.int(3); m > 0; m--) body = mutate(rng, body)
        let text = JSON.stringify(body) ?? 'null'
        if (rng.chance(0.15)) text = brokenText(rng, text)
        if (rng.chance(0.01)) text = `{"model":"gpt-4o","pad":"${'a'.repeat(300 * 1024)}"}`
        const headers: Record<string, string> = {}
        const auth = rng.int(20)
        if (auth === 0) headers['x-api-key'] = rng.pick(keys)
        else if (auth === 1) headers.authorization = `Bearer ${TEST_ADMIN_KEY}`
        else if (auth === 2) headers.authorization = headerValue(rng)
        else if (auth > 3) headers.authorization = `Bearer ${rng.chance(0.7) ? fast : rng.pick(keys)}`
        if (rng.chance(0.8))
          headers['content-type'] = rng.pick([
            'application/json',
            'text/plain',
            'application/json; charset=utf-8',
          ])
        if (rng.chance(0.15)) headers['x-gov-flags'] = headerValue(rng)
        if (rng.chance(0.15)) headers['x-gov-session'] = headerValue(rng)
        if (rng.chance(0.1)) headers['anthropic-version'] = headerValue(rng)
        if (rng.chance(0.1)) headers['anthropic-beta'] = headerValue(rng)
        cases.push({ method: 'POST', path, headers, body: text })
      }
      const { statuses, codes, failures } = await runCases(t.url, cases)
      const seen = JSON.stringify([...codes])
      ctx.diagnostic(`answers: ${seen}`)
      assert.deepEqual(failures, [], `5xx from gov (reproduce with GOV_FUZZ_SEED=${fuzzSeed})`)
      // The generator must reach the provider too, or the test only fuzzes validation.
      assert.ok((statuses.get(200) ?? 0) > CASES / 10, `too few calls passed: ${seen}`)
      assert.ok((statuses.get(400) ?? 0) > CASES / 10, `too few calls refused: ${seen}`)
    })
  }
})
