import assert from 'node:assert/strict'
import { before, describe, it } from 'node:test'
import type { StepServices } from '@gov/core'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import { analyzerOptions, plainOptions } from '../src/analysis-options.js'
import { type AnalyzerOptions, analyzeChunk } from '../src/analyze-text.js'
import { sharedGazetteer } from '../src/gazetteer-loader.js'
import plugin, { type PiiSettings, type PiiStep } from '../src/index.js'
import { withDefaults } from '../src/settings.js'

/** A ready step instance with default settings plus `overrides`, and its services. */
export async function makeStep(
  overrides: Partial<PiiSettings> = {},
  services: StepServices & { counts: Map<string, number> } = makeServices('detect_pii'),
): Promise<{ step: PiiStep; services: StepServices & { counts: Map<string, number> } }> {
  const step = (await plugin.create(withDefaults(overrides), services)) as PiiStep
  await step.ready()
  return { step, services }
}

/**
 * The verdict of `step` on one user message `text`, and the text that would reach the provider: `continue` with
 * the text unchanged when nothing was found.
 */
export async function strictVerdict(step: PiiStep, text: string): Promise<{ kind: string; text: string }> {
  const exchange = makeExchange([{ source: 'user', text }])
  const verdict = await step.onRequest(makeRequestContext(exchange))
  return { kind: verdict.kind, text: exchange.messages[0].parts[0].text ?? '' }
}

/**
 * A class of benign prompts the detector must leave alone, and prompts of the same shape with a person or a real
 * datum, each with the findings still expected (`TYPE:value`, `!` for a score ≥ 0.8).
 */
export interface FindingClass {
  name: string
  benign: string[]
  person: [string, string[]][]
}

/** Each finding as `TYPE:value`, with `!` when it scores ≥ 0.8 (refuses under the presets' `block_min_score`). */
export function findingsOf(text: string, options: AnalyzerOptions): string[] {
  return analyzeChunk(text, options).map(
    (d) => `${d.type}:${text.slice(d.start, d.end)}${d.score >= 0.8 ? '!' : ''}`,
  )
}

/**
 * A suite over `classes`: no finding in each class's benign prompts and the expected ones in its person prompts;
 * then, under the presets' strict settings, every benign prompt passes unchanged and each of `refused` is refused.
 */
export function describeClasses(
  title: string,
  classes: readonly FindingClass[],
  refused: readonly string[],
): void {
  describe(title, () => {
    let options: AnalyzerOptions
    before(async () => {
      options = await defaultAnalyzerOptions()
    })
    for (const c of classes) {
      it(`${c.name}: no finding in the benign prompts, the person next to them found`, () => {
        for (const text of c.benign) assert.deepEqual(findingsOf(text, options), [], text)
        for (const [text, expected] of c.person) assert.deepEqual(findingsOf(text, options), expected, text)
      })
    }
    it('under strict settings the benign prompts pass unchanged and a person in the same shape is refused', async () => {
      const { step } = await makeStep({
        action: 'block',
        block_min_score: 0.8,
        mask_only_types: ['ORGANIZATION'],
      })
      for (const text of classes.flatMap((c) => c.benign))
        assert.deepEqual(await strictVerdict(step, text), { kind: 'continue', text }, text)
      for (const text of refused) assert.equal((await strictVerdict(step, text)).kind, 'block', text)
    })
  })
}

/** The analyzer's options under default settings, with the shared gazetteer. */
export async function defaultAnalyzerOptions(): Promise<AnalyzerOptions> {
  return analyzerOptions(plainOptions(withDefaults()), await sharedGazetteer())
}

/** The texts of the PERSON findings in `text`. */
export function personsIn(text: string, options: AnalyzerOptions): string[] {
  return analyzeChunk(text, options)
    .filter((d) => d.type === 'PERSON')
    .map((d) => text.slice(d.start, d.end))
}

const PEOPLE = ['Randy Shaw', 'Maria Gonzalez', 'Jürgen Müller', 'Aiko Tanaka', 'Donald van der Voet']
const STREETS = ['Baker Street', 'Via Roma', 'Hauptstraße', 'Rue du Centre', 'Elm Avenue']

/** A text of about `chars` characters dense in personal data (names, contacts, cards, addresses), never repeating a line. */
export function densePiiText(chars: number): string {
  const lines: string[] = []
  let length = 0
  for (let i = 0; length < chars; i++) {
    const person = PEOPLE[i % PEOPLE.length]
    const line =
      `Ticket ${1000 + i}: ${person} (${person.split(' ')[0].toLowerCase()}.${i}@example.org, +44 20 7946 ${String(i % 10_000).padStart(4, '0')}) ` +
      `moved to ${10 + (i % 90)} ${STREETS[i % STREETS.length]} and paid with card 4111 1111 1111 1111 on account ${i * 7919}.`
    lines.push(line)
    length += line.length + 1
  }
  return lines.join('\n')
}
