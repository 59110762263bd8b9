import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { type AnalyzerOptions, analyzeChunk } from './analyze-text.js'
import type { Gazetteer } from './entities/gazetteer.js'
import { PII_TYPES } from './pii-types.js'
import { DEFAULT_PHONE_REGIONS } from './settings.js'

// Made-up sentences in the shapes the analyser meets: mostly prose, some names, contacts, numbers, other scripts.
const SENTENCES = [
  'Hi team, following up on yesterday’s call with Maria Gonzalez from Acme Logistics Ltd.',
  'Our service reads messages from a queue, transforms them and writes the results to a table.',
  'Can you summarise the open points for the meeting in Berlin next week and list the risks?',
  'I would like a plan that fits into the evenings, with short quizzes and concrete examples.',
  'She asked us to send the signed contract to maria.gonzalez@acme-logistics.example and to call her back.',
  'The team would prefer a change that can be rolled out gradually rather than a rewrite.',
  'We spent a year at Solarlist, then joined H. J. Wilson & Company in South Korea.',
  'Draft a short, polite reply that confirms the delivery date and thanks them for their patience.',
  'Her number is +44 20 7946 0958, and the invoice goes to 221B Baker Street, London NW1 6XE.',
  'My kitchen has a small oven, so I can only bake one tray at a time, and two guests eat no meat.',
  'Grüße an Jürgen Müller aus Köln, und danke für die schnelle Antwort.',
  'Last summer the tomato plants grew tall but produced very little fruit, and slugs ate the lettuce.',
  'Please check the card 4111 1111 1111 1111 and the IBAN DE89 3704 0044 0532 0130 00, born 3 March 1984.',
  'What would you suggest I do first, and why? Ask Randy Shaw if anything is unclear.',
  'Звоните Александр Иванов завтра утром; the server at 192.168.10.24 answered.',
  'The dialogue is the part I find hardest, because my characters all end up sounding the same.',
]

/** About 1 KB texts that mix the sentences in a different order each time. */
function sampleTexts(count: number): string[] {
  const texts: string[] = []
  for (let n = 0; n < count; n++) {
    let text = ''
    for (let k = 0; text.length < 1024; k++) text += `${SENTENCES[(n * 5 + k * 3) % SENTENCES.length]} `
    // Some texts in lower case: the tagger reads those differently.
    texts.push(n % 7 === 6 ? text.toLowerCase() : text)
  }
  return texts
}

/** Texts analysed to warm up; past this, further calls run at their steady-state cost. */
export const WARM_UP_TEXTS = 200

let structured: Promise<void> | undefined
let entities: Promise<void> | undefined

/**
 * Runs the analyser over built-in sample texts once per process, yielding to
 * the event loop between texts, so the JIT compiles the hot paths before the
 * first real call instead of during the first ~150 calls (which otherwise
 * cost 2–3× their steady-state time). Costs ~0.2 s (~0.3 s of CPU with the
 * JIT threads), once per process, during `ready()`.
 */
export function warmUpAnalyzer(gazetteer: Gazetteer | undefined): Promise<void> {
  if (gazetteer) {
    entities ??= runWarmUp(gazetteer)
    return entities
  }
  structured ??= runWarmUp(undefined)
  return structured
}

async function runWarmUp(gazetteer: Gazetteer | undefined): Promise<void> {
  const options: AnalyzerOptions = {
    types: new Set(PII_TYPES),
    minScore: 0.5,
    allowList: new Set(),
    allowPatterns: [],
    locations: 'personal',
    organizations: 'personal',
    phoneRegions: DEFAULT_PHONE_REGIONS,
    gazetteer,
  }
  for (const text of sampleTexts(WARM_UP_TEXTS)) {
    analyzeChunk(text, options)
    await yieldToLoop()
  }
}
