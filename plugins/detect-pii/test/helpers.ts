import type { StepServices } from '@gov/core'
import { makeServices } from '@gov/core/testing'
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
