/**
 * secretlint (preset-recommend, AWS id scanning on) as a cross-check for the
 * eval and the speed script; it is not used at run time. Its core records a
 * `performance` mark per rule per call and its profiler keeps every entry, so
 * each call clears both, or a long run slows down and grows without bound.
 */
import { performance } from 'node:perf_hooks'
import { lintSource } from '@secretlint/core'
import { secretLintProfiler } from '@secretlint/profiler'
import { creator as presetRecommend } from '@secretlint/secretlint-rule-preset-recommend'
import type { SecretLintCoreConfig } from '@secretlint/types'

const CONFIG: SecretLintCoreConfig = {
  rules: [
    {
      id: '@secretlint/secretlint-rule-preset-recommend',
      rule: presetRecommend,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
  ],
}

/** One secretlint report. */
export interface SecretlintHit {
  readonly ruleId: string
  readonly range: readonly [number, number]
}

/** Runs secretlint on a text and releases what its profiler kept. */
export async function secretlintScan(text: string): Promise<SecretlintHit[]> {
  const result = await lintSource({
    source: { content: text, filePath: 'prompt.txt', contentType: 'text' },
    options: { config: CONFIG, noPhysicFilePath: true },
  })
  await releaseProfilerEntries()
  return result.messages.map((m) => ({ ruleId: m.ruleId, range: m.range }))
}

interface ProfilerInternals {
  entries: unknown[]
  measures: unknown[]
}

/** Entries secretlint's profiler holds right now (marks it observed and measures it made). */
export function profilerEntryCount(): number {
  const internals = secretLintProfiler as unknown as ProfilerInternals
  return internals.entries.length + internals.measures.length + performance.getEntriesByType('mark').length
}

/**
 * Lets the profiler's observer see this call's marks and finish the measures it
 * queued (they need the marks to exist), then clears marks, measures and the
 * profiler's own arrays.
 */
export async function releaseProfilerEntries(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve))
  await secretLintProfiler.getMeasures()
  const internals = secretLintProfiler as unknown as ProfilerInternals
  internals.entries.length = 0
  internals.measures.length = 0
  performance.clearMarks()
  performance.clearMeasures()
}
