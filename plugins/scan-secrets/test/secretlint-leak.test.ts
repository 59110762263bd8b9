import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { lintSource } from '@secretlint/core'
import { creator } from '@secretlint/secretlint-rule-preset-recommend'
import { profilerEntryCount, releaseProfilerEntries, secretlintScan } from '../eval/secretlint-check.js'
import { alnum, P } from './fixtures.js'

// secretlint is the eval's cross-check, not the runtime scanner; its wrapper must not leak.
describe('secretlint cross-check', () => {
  const text = `aws_access_key_id = ${P.akia}${alnum(16)
    .toUpperCase()
    .replace(/[^A-Z2-7]/g, 'Q')}`

  it('leaks profiler entries when called bare (the problem the wrapper solves)', async () => {
    await releaseProfilerEntries()
    const config = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: creator }] }
    for (let i = 0; i < 5; i++) {
      await lintSource({
        source: { content: text, filePath: 'x.txt', contentType: 'text' },
        options: { config },
      })
    }
    await new Promise((resolve) => setImmediate(resolve))
    assert.ok(profilerEntryCount() > 50, `expected growth, saw ${profilerEntryCount()}`)
    await releaseProfilerEntries()
  })

  it('keeps no marks or profiler entries between calls through the wrapper', async () => {
    await releaseProfilerEntries()
    for (let i = 0; i < 30; i++) {
      const hits = await secretlintScan(text)
      assert.ok(hits.some((h) => h.ruleId.includes('aws')))
      assert.equal(profilerEntryCount(), 0)
    }
  })
})
