import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { scratchCodeUnits } from './code-units.js'
import { withoutDocstringWords } from './docstrings.js'
import type { Gazetteer } from './entities/gazetteer.js'
import { tagEntities } from './entities/tag-entities.js'
import { withoutExerciseCharacters } from './exercise-characters.js'
import { withoutQuestionTopics } from './knowledge-question.js'
import { withoutListedThings } from './listed-things.js'
import { personalLocations } from './location-policy.js'
import { personalOrganizations } from './organization-policy.js'
import { type Detection, ENTITY_TYPES, type PiiType } from './pii-types.js'
import { withoutPlaceTeams } from './place-teams.js'
import { resolveOverlaps } from './resolve-overlaps.js'
import { findCreditCards } from './structured/credit-card.js'
import { findDatesOfBirth } from './structured/date-of-birth.js'
import { findEmails } from './structured/email.js'
import { findIbans } from './structured/iban.js'
import { findIpAddresses } from './structured/ip-address.js'
import { findPhoneNumbers } from './structured/phone.js'
import { findStreetAddresses, type PlaceLookup } from './structured/street-address.js'
import { findUsSsns } from './structured/us-ssn.js'
import { splitChunks } from './text-chunks.js'
import { readTextFacts } from './text-facts.js'

/** What to look for; built once per step instance from its settings. */
export interface AnalyzerOptions {
  readonly types: ReadonlySet<PiiType>
  readonly minScore: number
  /** Lower-cased terms never reported (a value equal to one, or inside one). */
  readonly allowList: ReadonlySet<string>
  /** A value matching one of these whole is never reported. */
  readonly allowPatterns: readonly RegExp[]
  /** `personal`: places only where they locate a person; `all`: every place. */
  readonly locations: 'personal' | 'all'
  /** `personal`: organisations only in a text that also holds a person's data; `all`: every organisation. */
  readonly organizations: 'personal' | 'all'
  readonly phoneRegions: readonly string[]
  /** The loaded gazetteer, or undefined when named entities are off. */
  readonly gazetteer: Gazetteer | undefined
}

/** Texts longer than this are analysed in pieces, yielding to the event loop between them. */
export const CHUNK_SIZE = 16 * 1024

const lookups = new WeakMap<Gazetteer, PlaceLookup>()

/** The gazetteer's place and everyday-word sets, as the address detector asks for them. */
function placeLookup(g: Gazetteer | undefined): PlaceLookup | undefined {
  if (!g) return undefined
  let lookup = lookups.get(g)
  if (!lookup) {
    lookup = {
      isPlace: (key) => g.cities.has(key) || g.countries.has(key) || g.regions.has(key),
      isCommon: (key) => g.commonWords.has(key),
    }
    lookups.set(g, lookup)
  }
  return lookup
}

/**
 * The forms of a lower-case word a name list may hold: the word, without a genitive "s" ("annas" → "anna"), and in
 * Cyrillic without a case ending, with a nominative one ("ивану" → "иван", "марии" → "мария", "альберта" →
 * "альберт"), so an inflected given name is still known.
 */
function nameForms(key: string): string[] {
  const forms = [key]
  if (key.length > 3 && key.endsWith('s')) forms.push(key.slice(0, -1))
  if (CYRILLIC.test(key))
    for (const stem of [key.slice(0, -1), key.slice(0, -2)])
      if (stem.length >= 3) for (const ending of NOMINATIVE_ENDINGS) forms.push(stem + ending)
  return forms
}
const CYRILLIC = /\p{Script=Cyrillic}/u
const NOMINATIVE_ENDINGS = ['', 'а', 'я', 'й', 'ь']

/** True for a lower-case word the gazetteer lists as a given name or surname, or a form of one ({@link nameForms}). */
function knownNames(g: Gazetteer | undefined): ((key: string) => boolean) | undefined {
  if (!g) return undefined
  let known = nameLookups.get(g)
  if (!known) {
    const listed = (key: string) => g.firstNames.has(key) || g.lastNames.has(key)
    known = (key) => nameForms(key).some(listed)
    nameLookups.set(g, known)
  }
  return known
}
const nameLookups = new WeakMap<Gazetteer, (key: string) => boolean>()

/** Every detection in one piece of text (no chunking), overlaps resolved, filtered by the options. */
export function analyzeChunk(text: string, options: AnalyzerOptions): Detection[] {
  const { types } = options
  // Each guard is a condition the detector's own pattern cannot match without, so skipping changes nothing.
  // Read within this call only (the detections keep offsets, not units), so a kept buffer serves every text.
  const units = scratchCodeUnits(text)
  const facts = readTextFacts(units)
  const found: Detection[] = []
  if (types.has('EMAIL_ADDRESS') && facts.hasAt) found.push(...findEmails(text))
  if (types.has('CREDIT_CARD') && facts.digitRun >= 4 && facts.digits >= 13)
    found.push(...findCreditCards(text))
  if (types.has('IBAN_CODE') && facts.digitRun >= 2) found.push(...findIbans(text))
  if (types.has('US_SSN') && facts.digitRun >= 4 && facts.digits >= 9) found.push(...findUsSsns(text))
  if (types.has('IP_ADDRESS') && ((facts.hasDot && facts.digits >= 4) || facts.colons >= 2))
    found.push(...findIpAddresses(text))
  if (types.has('PHONE_NUMBER') && facts.digits >= 7)
    found.push(...findPhoneNumbers(text, options.phoneRegions))
  if (types.has('DATE_OF_BIRTH') && facts.digitRun >= 2) found.push(...findDatesOfBirth(text))
  if (types.has('STREET_ADDRESS') && facts.digits > 0)
    found.push(...findStreetAddresses(text, placeLookup(options.gazetteer), facts.caseMode === 'lower'))
  if (options.gazetteer && ENTITY_TYPES.some((t) => types.has(t)))
    found.push(...tagEntities(text, options.gazetteer, units, facts.caseMode))
  const allowing = options.allowList.size > 0 || options.allowPatterns.length > 0
  const kept = found.filter(
    (d) => d.score >= options.minScore && types.has(d.type) && !(allowing && isAllowed(text, d, options)),
  )
  const resolved = resolveOverlaps(kept)
  const personal = options.locations === 'personal'
  // Characters of a word problem or a requested story, when nothing else in the text is personal data (0.6.5),
  // and the people a one-sentence knowledge question asks about (0.6.6).
  // Items of a list of things ("the following universities: Princeton, Stanford, Cornell", 0.6.8).
  // Items of a list of things ("the following universities: Princeton, Stanford, Cornell"), teams named by their
  // place in a game report ("when Carolina got the ball in the fourth quarter"), 0.6.8…
  const withoutTopics = withoutQuestionTopics(
    text,
    withoutExerciseCharacters(text, personal ? personalLocations(text, resolved) : resolved, personal),
    knownNames(options.gazetteer),
  )
  // …and the words of a function's docstring ("""" Input is … Valid choices are …").
  const final = withoutDocstringWords(
    text,
    withoutPlaceTeams(
      text,
      withoutListedThings(text, withoutTopics),
      placeLookup(options.gazetteer)?.isPlace,
    ),
  )
  // Organisations only beside a person's data, judged on what every other rule left (0.6.9).
  return options.organizations === 'personal' ? personalOrganizations(text, final, options.locations) : final
}

/** True when the admin's allow-list or allow patterns cover the detected value. */
function isAllowed(text: string, d: Detection, options: AnalyzerOptions): boolean {
  const value = text.slice(d.start, d.end).trim()
  const key = value.toLowerCase()
  if (options.allowList.has(key)) return true
  for (const term of options.allowList) if (term.length > key.length && containsWord(term, key)) return true
  return options.allowPatterns.some((pattern) => pattern.test(value))
}

/** True when `part` occurs in `whole` between word boundaries. */
function containsWord(whole: string, part: string): boolean {
  for (let at = whole.indexOf(part); at >= 0; at = whole.indexOf(part, at + 1)) {
    const before = at === 0 || !/[\p{L}\p{N}]/u.test(whole[at - 1])
    const end = at + part.length
    const after = end === whole.length || !/[\p{L}\p{N}]/u.test(whole[end])
    if (before && after) return true
  }
  return false
}

/**
 * Analyses a text of any length in one go: texts over {@link CHUNK_SIZE} are
 * cut into pieces at line breaks, exactly as {@link analyzeText} cuts them,
 * so both give the same detections. For the analysis worker, where blocking
 * is harmless.
 */
export function analyzeTextNow(text: string, options: AnalyzerOptions): Detection[] {
  if (text.length <= CHUNK_SIZE) return analyzeChunk(text, options)
  const out: Detection[] = []
  for (const [start, end] of splitChunks(text, CHUNK_SIZE)) appendPiece(out, text, start, end, options)
  return out
}

/**
 * Analyses a text of any length on the calling thread. Long texts are cut
 * into ~16 KB pieces at line breaks and the event loop gets a turn between
 * pieces, so a long text delays other requests by one piece at a time, not
 * by the whole text.
 */
export async function analyzeText(text: string, options: AnalyzerOptions): Promise<Detection[]> {
  if (text.length <= CHUNK_SIZE) return analyzeChunk(text, options)
  const out: Detection[] = []
  for (const [start, end] of splitChunks(text, CHUNK_SIZE)) {
    appendPiece(out, text, start, end, options)
    await yieldToLoop()
  }
  return out
}

function appendPiece(
  out: Detection[],
  text: string,
  start: number,
  end: number,
  options: AnalyzerOptions,
): void {
  for (const d of analyzeChunk(text.slice(start, end), options))
    out.push({ ...d, start: d.start + start, end: d.end + start })
}
