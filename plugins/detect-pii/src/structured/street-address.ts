import type { Detection } from '../pii-types.js'
import { matchesOf } from './matches.js'

/** Matches a word in its capitalised form, and in lower case when `lower` is set. */
function alternation(words: readonly string[], lower = false): string {
  const forms = new Set<string>()
  for (const w of words) {
    forms.add(w)
    if (lower) forms.add(w.toLowerCase())
  }
  // Longest first, so "Street" wins over "St".
  return [...forms]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/[.]/g, '\\.'))
    .join('|')
}

// Street types written after the name (English-speaking countries).
const TYPES_AFTER = alternation(
  [
    'Street',
    'St',
    'Avenue',
    'Ave',
    'Av',
    'Road',
    'Rd',
    'Boulevard',
    'Blvd',
    'Lane',
    'Ln',
    'Drive',
    'Dr',
    'Court',
    'Ct',
    'Place',
    'Pl',
    'Square',
    'Sq',
    'Terrace',
    'Terr',
    'Parkway',
    'Pkwy',
    'Highway',
    'Hwy',
    'Way',
    'Circle',
    'Cir',
    'Close',
    'Crescent',
    'Cres',
    'Grove',
    'Gardens',
    'Row',
    'Mews',
    'Trail',
    'Trl',
    'Walk',
    'Alley',
    'Plaza',
    'Heights',
    'Hill',
    'Park',
    'Loop',
    'Path',
    'Pike',
    'Route',
    'Crossing',
    'Point',
    'Ridge',
    'View',
    'Expressway',
    'Expy',
    'Freeway',
    'Fwy',
    'Turnpike',
    'Causeway',
    'Parade',
    'Esplanade',
    'Wharf',
    'Quay',
    'Green',
    'Rise',
    'Vale',
    'Ln',
    'Stravenue',
    'Stadion',
  ],
  true,
)
// Street types written before the name (Romance, Slavic and other languages).
const TYPES_BEFORE = alternation([
  'Rue',
  'Avenue',
  'Av.',
  'Boulevard',
  'Bd',
  'Bd.',
  'Chemin',
  'Place',
  'Allée',
  'Impasse',
  'Quai',
  'Route',
  'Via',
  'Viale',
  'Piazza',
  'Piazzale',
  'Corso',
  'Vicolo',
  'Largo',
  'Calle',
  'Avenida',
  'Avda.',
  'Paseo',
  'Plaza',
  'Carrer',
  'Camino',
  'Carretera',
  'Rua',
  'Travessa',
  'Praça',
  'Estrada',
  'Alameda',
  'Aleja',
  'Aleea',
  'Strada',
  'Bulevardul',
  'Calea',
  'Ulica',
  'Trg',
  'Zona',
  'Rambla',
  'Ronda',
  'Travesía',
])
const TYPES_BEFORE_ABBR = 'ul\\.|al\\.|str\\.|Str\\.|pl\\.|os\\.'
// Street types glued to the name (Germanic, Nordic, Finnish, Hungarian, Slavic).
const GLUED = alternation([
  'straße',
  'strasse',
  'str.',
  'weg',
  'gasse',
  'platz',
  'allee',
  'ring',
  'damm',
  'ufer',
  'chaussee',
  'steig',
  'straat',
  'laan',
  'gracht',
  'plein',
  'dreef',
  'kade',
  'singel',
  'steeg',
  'vej',
  'gade',
  'stræde',
  'gatan',
  'gata',
  'vägen',
  'väg',
  'gränd',
  'veien',
  'vei',
  'gate',
  'veg',
  'tie',
  'katu',
  'kuja',
  'polku',
  'kaari',
  'utca',
  'út',
  'útja',
  'tér',
  'körút',
  'ulica',
  'cesta',
  'trg',
  'ulice',
  'náměstí',
  'třída',
  'tee',
])
const SPLIT_TYPES = alternation([
  'vei',
  'veien',
  'gate',
  'vej',
  'gade',
  'utca',
  'út',
  'tér',
  'körút',
  'tie',
  'katu',
])

const NUM = '\\d{1,6}[A-Za-z]?(?:-\\d{1,4})?'
const PARTICLE = "(?:de|du|des|la|le|di|da|del|della|dello|dos|das|do|van|von|der|den|l'|d')"
const UNIT_WORDS = '(?:Apt\\.?|Apartment|Suite|Ste\\.?|Unit|Flat|Floor|Fl\\.?|Room|Rm\\.?|#)'
const UNIT = `(?:,?[ \\t]*\\n?[ \\t]*${UNIT_WORDS}[ \\t]*[\\w-]{1,6})?`
const DIRECTION = '(?:(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\\.?[ ]+)?'

/**
 * An address pattern, its score, and a cheap pattern every match contains: a
 * text without it cannot match, so the costly pattern is not run on it.
 */
export interface AddressPattern {
  readonly re: RegExp
  readonly score: number
  readonly needs?: RegExp
  /** `needs` made global, to find where the next match can begin (see {@link matchesFrom}). */
  readonly anchor?: RegExp
  /**
   * Per ASCII code unit, 1 when no match can hold it before its `needs` part: a match begins after the last
   * such unit before that part. Units that may be in a match are 0 (letters, digits, the pattern's spaces and
   * punctuation), and so is every non-ASCII unit (some are letters or marks).
   */
  readonly barrier?: Uint8Array
  /** English number-first order: in lower-case text, a match with a function word or unit is prose. */
  readonly english?: boolean
}

/** The address patterns, for normal text (names capitalised) or for all-lower-case text. */
function buildPatterns(lower: boolean): AddressPattern[] {
  const cap = lower ? "[\\p{L}][\\p{L}\\p{M}'’.-]*" : "[\\p{Lu}][\\p{L}\\p{M}'’.-]*"
  const flags = lower ? 'giu' : 'gu'
  const nameWord = `(?:${cap}|\\d{1,3}(?:st|nd|rd|th))`
  const before = lower ? `${TYPES_BEFORE}|${TYPES_BEFORE.toLowerCase()}` : TYPES_BEFORE
  const unit = lower ? UNIT : UNIT
  const numberFirst = new RegExp(
    `(?<![\\p{L}\\p{N}])${NUM}(?:[ ]\\d{1,5})?[ ]+${DIRECTION}(?:${nameWord}[ ]+){1,4}?(?:${TYPES_AFTER})\\.?(?![\\p{L}\\p{N}])${unit}`,
    flags,
  )
  const typeFirst = new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${NUM}[ ]+)?(?:(?:${before})|(?:${TYPES_BEFORE_ABBR}))[ ]+(?:(?:${PARTICLE}|${cap})[ ]+){0,3}${cap},?[ ]+${NUM}(?![\\p{L}\\p{N}])${unit}`,
    flags,
  )
  // Every match of these two opens with a digit or a name letter; saying so first lets the engine skip other
  // positions before it evaluates the look-behind.
  const opens = lower ? '(?=[\\d\\p{L}])' : '(?=[\\d\\p{Lu}])'
  const glued = new RegExp(
    `${opens}(?<![\\p{L}\\p{N}])(?:${NUM}[ ]+)?(?:${cap}[ ]){0,2}(?:${cap.replace("'’.-]*", '-]*')}(?:${GLUED})|(?:${cap}[ ]){1,2}(?:${SPLIT_TYPES})),?[ ]*${NUM}(?![\\p{L}\\p{N}])${unit}`,
    flags,
  )
  // "69 Roheline 43\n Apt. 305": a name between numbers, only when a unit follows.
  const bare = new RegExp(
    `${opens}(?<![\\p{L}\\p{N}])(?:${NUM}[ ]+)?(?:${cap}[ ]){1,3}${NUM}(?=,?[ \\t]*\\n?[ \\t]*${UNIT_WORDS}[ \\t]*\\d)${UNIT}`,
    flags,
  )
  const test = flags.replace('g', '')
  const needed = (source: string, inMatch: string) => ({
    needs: new RegExp(source, test),
    anchor: new RegExp(source, flags),
    barrier: barriers(inMatch),
  })
  return [
    { re: numberFirst, score: 0.8, english: true },
    // Before its street type, a match holds a house number and spaces.
    { re: typeFirst, score: 0.75, ...needed(`(?:${before}|${TYPES_BEFORE_ABBR})[ ]`, '-0-9A-Za-z ') },
    // Before its glued type: a house number, spaces and name words (letters, marks, ' ’ . -).
    { re: glued, score: 0.75, ...needed(`(?:${GLUED}|${SPLIT_TYPES}),?[ ]*\\d`, "-0-9A-Za-z '.") },
    // Before its unit: numbers and name words, then a comma, tabs and a line break.
    { re: bare, score: 0.65, ...needed(`${UNIT_WORDS}[ \\t]*\\d`, "-0-9A-Za-z '.,\t\n") },
    { re: PO_BOX, score: 0.8 },
  ]
}

/** The {@link AddressPattern.barrier} table: 1 for every ASCII unit outside the character class `inMatch`. */
function barriers(inMatch: string): Uint8Array {
  const allowed = new RegExp(`[${inMatch}]`)
  const out = new Uint8Array(128)
  for (let c = 0; c < 128; c++) out[c] = allowed.test(String.fromCharCode(c)) ? 0 : 1
  return out
}

/**
 * Every match of `re` in `text`, as {@link matchesOf} gives them, searched only from where a match can begin:
 * each match holds a match of `anchor` (its `needs` part), and before that part only units that `barrier`
 * marks 0. So the next match cannot begin before the last barrier unit ahead of the next anchor, and the
 * search starts there instead of at every capital of the text. No anchor ahead: no more matches.
 */
export function* matchesFrom(
  re: RegExp,
  anchor: RegExp,
  barrier: Uint8Array,
  text: string,
): Generator<RegExpExecArray> {
  let from = 0
  while (from <= text.length) {
    anchor.lastIndex = from
    const a = anchor.exec(text)
    if (!a) return
    let start = a.index
    // Bounded by `from`, so the walks of one text together read it at most once.
    while (start > from) {
      const c = text.charCodeAt(start - 1)
      if (c < 128 && barrier[c] === 1) break
      start--
    }
    re.lastIndex = start
    const m = re.exec(text)
    if (!m) return
    yield m
    from = m.index + Math.max(m[0].length, 1)
  }
}

const PO_BOX =
  /(?<![\p{L}\p{N}])(?:\d{1,5}[ ])?(?:P\.?[ ]?O\.?[ ]?Box|Post(?:fach| Office Box)|PSC[ ]\d{1,5},?[ ]Box|Unit[ ]\d{1,5}[ ]Box)[ ]\d{1,6}(?:[ \t]*\n?[ \t]*(?:APO|FPO|DPO)[ ](?:AA|AE|AP)[ ]\d{5})?/giu
const NORMAL_PATTERNS = buildPatterns(false)
const LOWER_PATTERNS = buildPatterns(true)
/** The address patterns of normal and of all-lower-case text (for tests). */
export const ADDRESS_PATTERNS: readonly (readonly AddressPattern[])[] = [NORMAL_PATTERNS, LOWER_PATTERNS]

// One more line or comma-separated part of an address: unit, postcode, state code, or place words.
const TAIL_SEPARATOR = /^[ \t]*,?[ \t]*(?:\n[ \t>?*]*){0,2}[ \t]*,?[ \t]*/
const TAIL_UNIT = new RegExp(`^${UNIT_WORDS}[ \\t]*[\\w-]{1,6}`, 'iu')
const TAIL_POSTCODE = /^\d{4,6}(?:-\d{4})?(?![\p{L}\p{N}])/u
const TAIL_STATE = /^(?:[A-Z]{2}|nan)(?![\p{L}\p{N}])/u
const TAIL_WORDS = /^[\p{L}][\p{L}\p{M}'’.-]*(?:[ ][\p{L}][\p{L}\p{M}'’.-]*){0,4}/u
const TAIL_END = /^(?:[ \t]*(?:,|\n|$)|[ \t]+\d{4,6}(?![\p{L}\p{N}]))/u

/** Lookups the tail extension uses to accept place words; without it, only capitalised words ending a line count. */
export interface PlaceLookup {
  isPlace(key: string): boolean
  isCommon(key: string): boolean
}

/** Extends an address over following parts (unit, city, region, country, postcode), up to six of them. */
function extendTail(text: string, end: number, places: PlaceLookup | undefined, lower: boolean): number {
  for (let parts = 0; parts < 6; parts++) {
    const rest = text.slice(end, end + 120)
    const sep = TAIL_SEPARATOR.exec(rest)?.[0] ?? ''
    if (sep.includes('\n\n\n')) break
    const body = rest.slice(sep.length)
    const fixed = TAIL_UNIT.exec(body) ?? TAIL_POSTCODE.exec(body) ?? TAIL_STATE.exec(body)
    if (fixed) {
      end += sep.length + fixed[0].length
      continue
    }
    const words = TAIL_WORDS.exec(body)?.[0]
    if (!words) break
    const taken = takePlaceWords(words, body, places, lower)
    if (!taken) break
    end += sep.length + taken
  }
  return end
}

/** Length of the leading words of `body` that name a place, or 0. */
function takePlaceWords(
  words: string,
  body: string,
  places: PlaceLookup | undefined,
  lower: boolean,
): number {
  const list = words.split(' ')
  for (let n = list.length; n > 0; n--) {
    const phrase = list.slice(0, n).join(' ')
    const key = phrase.toLowerCase().replace(/[.,]+$/, '')
    if (places?.isPlace(key)) return phrase.length
    // A capitalised word group that closes its line or comes before a postcode ("Zoetermeer\n", "Lyss, 98711").
    const capitalised = list
      .slice(0, n)
      .every((w) => /^[\p{Lu}\d]/u.test(w) || /^(?:de|di|del|la|le|du|des|am|an|im|sur|upon|on)$/.test(w))
    if (
      !lower &&
      capitalised &&
      TAIL_END.test(body.slice(phrase.length)) &&
      !places?.isCommon(list[0].toLowerCase())
    )
      return phrase.length
  }
  return 0
}

const WORD = /\p{L}[\p{L}\p{M}'’.-]*/gu

/** Function words and units that do not occur in a street name, only in prose with a number. */
const PROSE_WORD =
  /(?<![\p{L}])(?:of|the|a|an|on|in|at|per|to|for|and|or|with|by|from|is|are|was|were|be|has|have|had|that|this|these|those|they|them|their|he|she|his|her|it|its|we|you|i|more|less|each|every|other|minutes?|hours?|seconds?|days?|weeks?|miles?|feet|foot|meters?|metres?|km|times?)(?![\p{L}])/iu

/** A kind of storage device before "Drive": no street type there. */
const DEVICE_DRIVE =
  /(?<![\p{L}])(?:hard|flash|thumb|disk|disc|usb|pen|state|optical|tape|floppy|jump|ssd|hdd|nvme|dvd|cd|blu-ray|zip)[ ]+drives?(?![\p{L}])/iu

/** The English function words and units of {@link PROSE_WORD} that are no word of another language's street name. */
const ENGLISH_PROSE_WORD =
  /(?<![\p{L}])(?:of|the|per|to|for|and|with|by|from|is|are|was|were|has|have|had|that|this|they|them|their|he|she|his|her|it|its|we|you|more|less|each|every|minutes?|hours?|miles?|times?)(?![\p{L}])/iu

/**
 * Finds street addresses: a house number with a street name and street type
 * (English order "12 Baker Street", Romance order "Via Roma 41", glued types
 * "Holmevej 34"), or a post box; then extends the match over the unit, city,
 * region, country and postcode that follow on the same or next lines.
 * Addresses without a house number or street type are not found.
 */
export function findStreetAddresses(text: string, places?: PlaceLookup, lower = false): Detection[] {
  if (!/\d/.test(text)) return []
  const out: Detection[] = []
  for (const { re, score, needs, anchor, barrier, english } of lower ? LOWER_PATTERNS : NORMAL_PATTERNS) {
    if (needs && !needs.test(text)) continue
    for (const m of anchor && barrier ? matchesFrom(re, anchor, barrier, text) : matchesOf(re, text)) {
      // In all-lower-case text a street name is any word: "20 beads per row", "4 miles of road" are counts.
      if (lower && (english ? PROSE_WORD : ENGLISH_PROSE_WORD).test(m[0])) continue
      // One everyday word before a number is no street ("During 2021" reads as a glued "…ring 2021").
      const words = m[0].match(WORD)
      if (words?.length === 1 && places?.isCommon(words[0].toLowerCase())) continue
      const raw = m[0].replace(/[\s,]+$/, '')
      const end = extendTail(text, m.index + raw.length, places, lower)
      // A storage device is no street: "2 Internal Solid State Hard Drive", "64 GB USB Flash Drive" (0.6.8); with a
      // city or postcode after it, it is one ("12 Hard Drive, Austin, TX 78701").
      if (english && DEVICE_DRIVE.test(m[0]) && !/[\p{Lu}\d]/u.test(text.slice(m.index + raw.length, end)))
        continue
      out.push({
        type: 'STREET_ADDRESS',
        start: m.index,
        end,
        score: end > m.index + raw.length ? score + 0.1 : score,
      })
    }
  }
  return out
}
