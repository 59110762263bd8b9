import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import { dropSchema, TEST_DATABASE_URL, uniqueSchema } from '../storage/postgres-schema.js'
import { adminCase } from './admin-cases.js'
import { Rng } from './fuzz-gen.js'
import { fuzzSeed, runCases } from './fuzz-runner.js'

const CASES = Number(process.env.GOV_FUZZ_ADMIN_CASES ?? 600)

/** Runs on the memory store always, and on PostgreSQL when `GOV_TEST_DATABASE_URL` is set. */
for (const kind of ['memory', 'postgres'] as const) {
  describe(`fuzzed admin calls never get a 5xx from gov (${kind} store)`, {
    skip: kind === 'postgres' && !TEST_DATABASE_URL ? 'GOV_TEST_DATABASE_URL is not set' : false,
  }, () => {
    let t: TestGateway
    const schema = uniqueSchema('fuzz')
    const known = { pipelines: ['p-1', 'p-2'], agents: ['a-1', 'a-2'] }

    before(async () => {
      t = await startTestGateway({
        env: {
          GOV_MAX_BODY_BYTES: String(256 * 1024),
          ...(kind === 'postgres' ? { DATABASE_URL: TEST_DATABASE_URL } : {}),
        },
        ...(kind === 'postgres' ? { start: { databaseSchema: schema } } : {}),
      })
      for (const id of known.pipelines) await t.createPipeline(id, 'standard')
      for (const id of known.agents) await t.createAgent(id, known.pipelines[0])
    })
    after(async () => {
      await t.close()
      if (kind === 'postgres') await dropSchema(TEST_DATABASE_URL!, schema)
    })

    it(`${CASES} seeded cases (seed ${fuzzSeed})`, async (ctx) => {
      const rng = new Rng(fuzzSeed ^ 0xad)
      const cases = Array.from({ length: CASES }, () => adminCase(rng, known))
      // Admin changes share state: two at a time keeps create/delete/assign races in play.
      const { codes, failures } = await runCases(t.url, cases, 2)
      assert.deepEqual(failures, [], `5xx from gov (reproduce with GOV_FUZZ_SEED=${fuzzSeed})`)
      const seen = [...codes.keys()]
      ctx.diagnostic(`answers: ${JSON.stringify([...codes])}`)
      for (const expected of ['200', '201', '400', '401', '404']) {
        assert.ok(
          seen.some((c) => c.startsWith(expected)),
          `no ${expected} answer: ${JSON.stringify([...codes])}`,
        )
      }
    })
  })
}
