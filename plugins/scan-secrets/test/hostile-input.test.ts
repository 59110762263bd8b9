/**
 * Linear, bounded work on hostile input (issue 12): texts built to make the
 * rules work hard answer without throwing, heuristic rules stop at their cap,
 * and redaction still covers every finding. Speed itself is measured by
 * eval/speed.ts --hostile, not asserted here (no timed tests).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange, makeRequestContext } from '@gov/core/testing'
import { MAX_HEURISTIC_FINDINGS } from '../src/scanner.js'
import { alnum, hostileTexts } from './fixtures.js'
import { makeStep } from './helpers.js'

const SIZE = 200_000
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE)

describe('hostile input: bounded, never a failure', async () => {
  const step = await makeStep({ action: 'redact' })
  for (const [name, text] of Object.entries(hostileTexts(SIZE))) {
    it(`answers 200 KB of ${name}`, () => {
      const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]), { step: 'scan_secrets' })
      step.onRequest(ctx)
      const perRule = new Map<string, number>()
      for (const f of ctx.findings) {
        const rule = String(f.detail?.rule)
        perRule.set(rule, (perRule.get(rule) ?? 0) + 1)
      }
      for (const rule of ['generic-secret-assignment', 'generic-named-value', 'generic-high-entropy']) {
        assert.ok((perRule.get(rule) ?? 0) <= MAX_HEURISTIC_FINDINGS, `${rule}: ${perRule.get(rule)}`)
      }
    })
  }

  it('stops a heuristic rule at its cap, and redacts everything it reported', () => {
    const text = fill(`key ${alnum(40)} `)
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]), { step: 'scan_secrets' })
    step.onRequest(ctx)
    const named = ctx.findings.filter((f) => f.detail?.rule === 'generic-named-value')
    assert.equal(named.length, MAX_HEURISTIC_FINDINGS)
    const redacted = ctx.exchange.messages[0].parts[0].text
    assert.ok(redacted.split('[REDACTED:').length - 1 >= MAX_HEURISTIC_FINDINGS)
  })
})
