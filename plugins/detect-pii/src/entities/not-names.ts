import type { Detection } from '../pii-types.js'
import { COMMON, DICTIONARY, FIRST, GERMAN, LAST, ORG_SUFFIX, PLACE, TITLE } from './lexicon.js'
import type { Token } from './tokenize.js'

/**
 * Rules for capitalised words that are no personal data although the tagger
 * (or a gazetteer rule) reads them as a person or an organisation. Each is a
 * class of text the training sentences (news, Wikipedia, tweets) seldom show;
 * the classes were found, and each rule checked, on the tuning part of the
 * benign prompts and on the calibration split (`train/tune.ts`), never on
 * held-out rows:
 *
 * - things, places, events and ideas named with a head noun: "Roman Empire",
 *   "Andromeda Galaxy", "Mitchell Tower", "Irish Potato Famine", "Coriolis
 *   effect"; head first in other languages: "Torre Eiffel", "Mercado del …";
 *   a "person" ending in an institution's head noun is that institution;
 * - a multi-word name right after "the" that is the whole noun phrase: "the
 *   Mona Lisa", "the Rosetta Stone" (a person's name takes no article; "the
 *   Luke Batty inquest" stays, the name modifies the next word);
 * - a team or group named by a plural noun: "Broncos", "Lost Boys";
 * - works: "the Harry Potter series", "the movie … Shutter Island" (not "a
 *   John Wyndham novel": a first name and a non-dictionary surname are the author);
 * - acronyms of terms: two letters ("AC", "DC") unless "the" names a body ("the
 *   EU"), an acronym in brackets after the lower-case words it abbreviates
 *   ("greatest common divisor (GCD)"), a plural acronym ("ETFs", "DVDs"; also
 *   a Danish genitive such as "FNs", which is lost);
 * - a field label: "Budget: $3,000";
 * - a month before a day number (0.6.1): "Jan 1, 2023", "Dec 5", "April 3rd";
 * - a word that is no known name right after the colon of a sentence
 *   introducing a question (three words or more, the last in lower case), when
 *   a lower-case word follows and the line ends with "." or "?" (0.6.1): "Veuillez répondre à la question
 *   suivante : Mentionnez la planète …", "… seguente domanda: Dimmi quanti …"
 *   (an imperative; "Name: Anna Berg", "Irish News: Mickey …" and "… the
 *   customer: Anna Berg" stay: a field label, a heading, a known name);
 * - in German text (0.6.1), a person whose every word is a German word that
 *   is no name (`model/german-words.txt`): German capitalises every noun
 *   ("Katy bereitet Kaffee zu", "10 Hektar", "Tassen Kaffee"); "Frau Müller",
 *   "Herr Schmidt", "Anna Berg" stay, their words are names the gazetteer knows;
 * - a name that is the topic of a knowledge question or request, or a persona
 *   the assistant is asked to play (0.6.0): "Who was Albert Einstein?",
 *   "paintings by Van Gogh", "Newton's laws", "in the style of Emily
 *   Dickinson" in a question or request; "You are Nikola Tesla", "Roleplay as
 *   Leonardo da Vinci"; the name's other mentions in the text go with it;
 * - an unknown word at a sentence start before a known first name is cut off
 *   ("Wakati Julia" → "Julia");
 * - a one-word organisation that the text also names as a person, or that is
 *   a known first name and no surname or place ("Gigi" in a word problem), is
 *   a person.
 */

/** Last words of names of things, places, events and ideas, never of a person's name. */
const THING_HEADS = new Set([
  'empire',
  'empires',
  'republic',
  'kingdom',
  'dynasty',
  'galaxy',
  'nebula',
  'planet',
  'garden',
  'gardens',
  'square',
  'park',
  'tower',
  'towers',
  'stone',
  'hall',
  'bridge',
  'river',
  'lake',
  'mountain',
  'mountains',
  'sea',
  'ocean',
  'island',
  'islands',
  'street',
  'road',
  'avenue',
  'boulevard',
  'war',
  'wars',
  'revolution',
  'act',
  'treaty',
  'charter',
  'declaration',
  'constitution',
  'award',
  'awards',
  'prize',
  'cup',
  'trophy',
  'festival',
  'championship',
  'championships',
  'league',
  'games',
  'olympics',
  'effect',
  'law',
  'laws',
  'theorem',
  'triangle',
  'principle',
  'paradox',
  'equation',
  'syndrome',
  'disease',
  'famine',
  'plague',
  'series',
  'show',
  'exhibit',
  'exhibition',
  'class',
  'stadium',
  'airport',
  'station',
  'palace',
  'castle',
  'cathedral',
  'chapel',
  'temple',
  'monument',
  'memorial',
  'statue',
  'canal',
  'valley',
  'desert',
  'forest',
  'falls',
  'bay',
  'coast',
  'peninsula',
  'continent',
  'hemisphere',
  'era',
  'age',
  'period',
  'century',
  'day',
  'services',
  'service',
  'address',
  'speech',
])

/** First words of names of things and places in other languages ("Torre Eiffel", "Teatrul de Vară"). */
const THING_HEADS_FIRST = new Set([
  'torre',
  'mercado',
  'teatro',
  'teatrul',
  'théâtre',
  'stadion',
  'stadionul',
  'estadio',
  'stadio',
  'aeropuerto',
  'aeroporto',
  'aeroportul',
  'aéroport',
  'palacio',
  'palazzo',
  'palais',
  'puente',
  'ponte',
  'pont',
  'castillo',
  'castello',
  'château',
  'iglesia',
  'chiesa',
  'église',
  'catedral',
  'cattedrale',
  'plaza',
  'piazza',
  'parque',
  'parco',
  'museo',
  'musée',
  'muzeul',
  'imperio',
  'impero',
  'imperiul',
  'reino',
  'regno',
  'guerra',
  'curtea',
  'lago',
  'monte',
  'isla',
  'isola',
])

/** Last words of institutions: a "person" ending in one is the institution ("Central Hospital"). */
const INSTITUTION_HEADS = new Set([
  'university',
  'college',
  'school',
  'academy',
  'hospital',
  'clinic',
  'museum',
  'library',
  'institute',
  'institution',
  'council',
  'parliament',
  'congress',
  'senate',
  'assembly',
  'committee',
  'commission',
  'union',
  'party',
  'army',
  'navy',
  'ministry',
  'department',
  'agency',
  'church',
  'society',
  'club',
  'company',
  'bank',
  'foundation',
  'court',
])

/** Words that name a work: "the Harry Potter series", "the movie Shutter Island". */
const WORKS = new Set([
  'series',
  'novel',
  'novels',
  'book',
  'books',
  'movie',
  'movies',
  'film',
  'films',
  'franchise',
  'saga',
  'trilogy',
  'universe',
  'episode',
  'episodes',
  'album',
  'song',
  'painting',
  'poem',
  'musical',
  'opera',
  'play',
  'game',
  'show',
  'comic',
  'comics',
  'cartoon',
  'anime',
  'manga',
  'sculpture',
])

/** Work nouns that are no verbs, before a title: "the movie Shutter Island", "the painting 'The Starry Night'". */
const WORKS_BEFORE = new Set([
  'novel',
  'movie',
  'film',
  'painting',
  'song',
  'album',
  'poem',
  'musical',
  'opera',
  'sculpture',
  'episode',
  'series',
])

/**
 * "a John Wyndham novel": a first name and a surname that is no dictionary word
 * before a work noun are its author; "the Harry Potter series" is its title.
 */
function authorName(
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOf: (t: Token) => number,
): boolean {
  return to > from && (flagsOf(tokens[from]) & FIRST) !== 0 && !(flagsOf(tokens[to]) & (COMMON | DICTIONARY))
}

/**
 * A persona the assistant is asked to play, named right after the request: "You are Nikola Tesla", "Roleplay as
 * Leonardo da Vinci", "Imagine you are Marie Curie". A character, not the personal data of whoever writes.
 */
const PERSONA =
  /(?:^|[.!?:\n]\s*|\b(?:and|now)\s+)(?:you are|you're|imagine (?:that )?you are|role-?play as|act as|pretend (?:to be|you are)|assume the (?:role|persona) of|take on the (?:role|persona) of|play the role of|you will play)\s+$/i

type Flags = (t: Token) => number
type KeyFlags = (key: string) => number

/**
 * German function words that other languages of the training data do not write alike (no "die", "den", "er",
 * "es", "man", "hat", "war": English, Danish or Spanish words too).
 */
const GERMAN_FUNCTION_WORDS = new Set([
  'der',
  'das',
  'und',
  'ist',
  'nicht',
  'ein',
  'eine',
  'einen',
  'einem',
  'einer',
  'mit',
  'von',
  'zu',
  'dem',
  'sie',
  'wie',
  'auf',
  'für',
  'im',
  'sich',
  'auch',
  'dass',
  'daß',
  'wenn',
  'wird',
  'sind',
  'oder',
  'aus',
  'bei',
  'nach',
  'wir',
  'ich',
  'haben',
  'kann',
  'noch',
  'nur',
  'über',
  'dann',
  'werden',
  'wurde',
  'viele',
  'jeden',
  'jede',
  'seine',
  'ihre',
  'ihr',
  'sein',
  'zum',
  'zur',
  'vom',
  'beim',
  'diese',
  'dieser',
  'dieses',
  'hatte',
  'gibt',
  'pro',
])

/**
 * True for German text: at least {@link GERMAN_MIN} German function words ("Wenn", "und"), and at least one in
 * {@link GERMAN_SHARE} of all words ("Wie heißt der höchste Berg der Welt?": 2 of 7).
 */
export function germanText(tokens: readonly Token[]): boolean {
  let n = 0
  for (const t of tokens) if (!t.allCaps && t.end - t.start <= 6 && GERMAN_FUNCTION_WORDS.has(t.key)) n++
  return n >= GERMAN_MIN && n * GERMAN_SHARE >= tokens.length
}
const GERMAN_MIN = 2
const GERMAN_SHARE = 10

/** The detections of one text without the readings above; PERSON and ORGANIZATION only, others pass. */
export function withoutNonNames(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  found: readonly Detection[],
  flagsOfKey: KeyFlags,
  spanOf: (d: Detection) => { from: number; to: number },
): Detection[] {
  const flagsOf: Flags = (t) => flagsOfKey(t.key)
  let persons: Set<string> | undefined
  /** Words of names dropped as the topic of a question or a persona: their other mentions go too. */
  let topics: Set<string> | undefined
  /** Whether the text is German, found on the first person whose words are all German words. */
  let german: boolean | undefined
  const out: Detection[] = []
  for (const d of found) {
    if (d.type !== 'PERSON' && d.type !== 'ORGANIZATION') {
      out.push(d)
      continue
    }
    const { from, to } = spanOf(d)
    if (from > to || to >= tokens.length) {
      out.push(d)
      continue
    }
    // German capitalises every noun: "Katy bereitet Kaffee zu", "120 Teelöffel Zucker und Tassen Wasser".
    if (d.type === 'PERSON' && germanWords(tokens, from, to, flagsOf)) {
      german ??= germanText(tokens)
      if (german) continue
    }
    if (monthDay(text, tokens, from, to)) continue
    if (d.type === 'PERSON' && afterQuestionColon(text, units, tokens, from, to, flagsOf)) continue
    const verdict = judge(text, units, tokens, d, from, to, flagsOfKey)
    if (verdict === 'drop') continue
    if (verdict === 'topic') {
      topics ??= new Set()
      for (let k = from; k <= to; k++) topics.add(tokens[k].key)
      continue
    }
    if (verdict === 'organization') {
      out.push({ type: 'ORGANIZATION', start: d.start, end: d.end, score: d.score })
      continue
    }
    if (verdict === 'trim') {
      out.push({ type: d.type, start: tokens[from + 1].start, end: d.end, score: d.score })
      continue
    }
    if (d.type === 'ORGANIZATION' && from === to) {
      persons ??= new Set(
        found.filter((p) => p.type === 'PERSON').map((p) => text.slice(p.start, p.end).toLowerCase()),
      )
      // …or a known first name that is no surname or place ("Gigi", "Amelia" in a word problem).
      const flags = flagsOf(tokens[from])
      if (
        persons.has(tokens[from].key) ||
        (flags & FIRST && !(flags & (LAST | PLACE)) && !tokens[from].allCaps)
      ) {
        out.push({ type: 'PERSON', start: d.start, end: d.end, score: d.score })
        continue
      }
    }
    out.push(d)
  }
  if (!topics) return out
  const known = topics
  // "Imagine you are Marie Curie … Curie's notebooks": every word of the mention is a word of the topic.
  return out.filter(
    (d) =>
      d.type !== 'PERSON' ||
      !(
        text
          .slice(d.start, d.end)
          .toLowerCase()
          .match(/[\p{L}\p{M}'’-]+/gu) ?? ['']
      ).every((w) => known.has(w)),
  )
}

/** Words after "the Mona Lisa" that show the span is the whole noun phrase, not a modifier of the next word. */
const FUNCTION_AFTER = new Set([
  'is',
  'was',
  'are',
  'were',
  'has',
  'had',
  'and',
  'or',
  'of',
  'in',
  'on',
  'at',
  'to',
  'for',
  'by',
  'with',
  'from',
  'that',
  'which',
  'who',
  'as',
  'but',
  'can',
  'could',
  'will',
  'would',
  'did',
  'does',
])

/**
 * "Broncos", "Carolina Panthers", "Lost Boys": no word of the span is a first
 * name and its last word is the plural of an ordinary noun that is no surname
 * ("Parsons", "Gates" in "Bill Gates" stay).
 */
function teamName(tokens: readonly Token[], from: number, to: number, flagsOfKey: KeyFlags): boolean {
  const last = tokens[to]
  if (!plural(last, flagsOfKey(last.key))) return false
  for (let k = from; k <= to; k++) if (flagsOfKey(tokens[k].key) & FIRST) return false
  const singular = flagsOfKey(last.key.slice(0, -1))
  return (singular & DICTIONARY) !== 0 && !(singular & (FIRST | LAST))
}

/** A plural-looking word that is no known surname ("the Broncos"; "the Johnsons" stays). */
function plural(t: Token, flags: number): boolean {
  return t.key.length > 4 && t.key.endsWith('s') && !(flags & (FIRST | LAST))
}

type Verdict = 'keep' | 'drop' | 'organization' | 'trim' | 'topic'

/**
 * Nouns of works and ideas a person is known for: "Einstein's theories", "paintings by Van Gogh", "in the
 * style of Emily Dickinson". Not "life", "career", "family": those are said of anyone.
 */
const KNOWN_FOR = new Set([
  'theory',
  'theories',
  'law',
  'laws',
  'works',
  'novel',
  'novels',
  'book',
  'books',
  'poem',
  'poems',
  'poetry',
  'sonnet',
  'sonnets',
  'play',
  'plays',
  'painting',
  'paintings',
  'artwork',
  'artworks',
  'sculptures',
  'music',
  'songs',
  'albums',
  'symphony',
  'symphonies',
  'operas',
  'films',
  'movies',
  'philosophy',
  'teachings',
  'writings',
  'essays',
  'lyrics',
  'compositions',
  'theorem',
  'paradox',
  'principle',
  'equations',
  'conjecture',
  'experiments',
  'discoveries',
  'inventions',
  'contributions',
  'legacy',
  'reign',
  'presidency',
  'speeches',
  'quotes',
  'style',
  'biography',
  'autobiography',
])

/** First words of a request or question: the sentence asks about its topic. */
const REQUEST_START = new Set([
  'who',
  'what',
  'when',
  'where',
  'why',
  'how',
  'which',
  'whose',
  'explain',
  'describe',
  'summarize',
  'summarise',
  'tell',
  'write',
  'compose',
  'list',
  'compare',
  'discuss',
  'analyze',
  'analyse',
  'give',
  'name',
  'recite',
  'create',
  'generate',
  'provide',
  'can',
  'could',
  'please',
  'show',
  'find',
  'suggest',
  'recommend',
])

/** How far the sentence around a cued name is looked for, each way (UTF-16 units). */
const SENTENCE_REACH = 200

/**
 * Bounds of the sentence around [start, end): after the last "." "!" "?" or line break before it, up to the
 * next. `opened` is false when no boundary (nor the text's start) lies within {@link SENTENCE_REACH}.
 */
export function sentenceAround(
  text: string,
  units: Uint16Array,
  start: number,
  end: number,
): { from: number; to: number; opened: boolean } {
  let from = start
  const limit = Math.max(0, start - SENTENCE_REACH)
  for (; from > limit; from--) {
    const c = units[from - 1]
    if (c === 10 || c === 33 || c === 63) break
    // A "." right after a capital or a title ("J. Smith", "Mr.") does not end a sentence.
    if (c === 46 && !/\p{Lu}$|\b(?:Mr|Mrs|Ms|Dr|St)$/u.test(text.slice(Math.max(0, from - 4), from - 1)))
      break
  }
  const opened = from === 0 || from > limit
  let to = end
  const stop = Math.min(units.length, end + SENTENCE_REACH)
  for (; to < stop; to++) {
    const c = units[to]
    if (c === 10 || c === 33 || c === 63 || c === 46) break
  }
  return { from, to, opened }
}

/**
 * A name that is the topic of a knowledge question or request, not someone's personal data: "Who was
 * Albert Einstein?", "a poem in the style of Emily Dickinson", "paintings by Van Gogh", "Newton's laws". Only
 * in a sentence that is a question (ends in "?") or starts with a request word ("Explain", "Write", …): in
 * declarative text ("She read the novels of John Smith.") the name stays. Also a persona named right after
 * "You are", "Roleplay as", … ({@link PERSONA}).
 */
function topicOfQuestion(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  from: number,
  to: number,
): boolean {
  const first = tokens[from]
  const last = tokens[to]
  const gapOnly = (a: Token, b: Token) => /^[ \t]+$/.test(text.slice(a.end, b.start))
  let cue = false
  // "Newton's laws", "Einstein's famous theory": a possessive before a known-for noun (one word between).
  if (last.possessive) {
    for (let k = to + 1; k <= to + 2 && k < tokens.length && !cue; k++) {
      if (KNOWN_FOR.has(tokens[k].key) && !tokens[k].cap) cue = true
      else if (tokens[k].cap) break
    }
  }
  // "paintings by Van Gogh", "the philosophy of Jeff Bezos", "in the style of Emily Dickinson".
  if (!cue && from >= 2) {
    const prep = tokens[from - 1]
    const noun = tokens[from - 2]
    cue =
      (prep.key === 'by' || prep.key === 'of') &&
      !prep.cap &&
      KNOWN_FOR.has(noun.key) &&
      gapOnly(prep, first) &&
      gapOnly(noun, prep)
  }
  // "Who was Albert Einstein?", "Who is Taylor Swift?": the name is the whole question.
  if (!cue && from >= 2) {
    const verb = tokens[from - 1].key
    cue =
      (verb === 'was' || verb === 'is' || verb === 'were') &&
      tokens[from - 2].key === 'who' &&
      /^\s*\?/.test(text.slice(last.end, last.end + 4))
  }
  if (!cue) return PERSONA.test(text.slice(Math.max(0, first.start - 40), first.start))
  const sentence = sentenceAround(text, units, first.start, last.end)
  if (units[sentence.to] === 63) return true
  if (!sentence.opened) return false
  const opening = /^[\s"'“‘«*#>-]*(\p{L}+)/u.exec(text.slice(sentence.from, first.start))
  return opening !== null && REQUEST_START.has(opening[1].toLowerCase())
}

function judge(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  d: Detection,
  from: number,
  to: number,
  flagsOfKey: KeyFlags,
): Verdict {
  const flagsOf: Flags = (t) => flagsOfKey(t.key)
  const first = tokens[from]
  const last = tokens[to]
  const before = from > 0 && spaced(units, tokens[from - 1], first) ? tokens[from - 1] : undefined
  const after = to + 1 < tokens.length && spaced(units, last, tokens[to + 1]) ? tokens[to + 1] : undefined
  const person = d.type === 'PERSON'
  const single = from === to
  const lastFlags = flagsOf(last)

  // The topic of a knowledge question: "Who was Albert Einstein?", "paintings by Van Gogh".
  if (person && topicOfQuestion(text, units, tokens, from, to)) return 'topic'

  // Things, places, events: "Roman Empire", "Oxford Hall". A first name + surname pair stays ("Emma Stone").
  if (!single && !last.allCaps) {
    const firstFlags = flagsOf(first)
    // "Emma Stone", "Mr. Park": a first name or a title before a surname-like head is a person's name.
    const fullName =
      person && ((to === from + 1 && firstFlags & FIRST && lastFlags & (FIRST | LAST)) || firstFlags & TITLE)
    if (!fullName && THING_HEADS.has(last.key) && !(lastFlags & ORG_SUFFIX)) return 'drop'
    // Head first, as in the Romance and other languages: "Torre Eiffel", "Mercado del Grainger".
    if (person && THING_HEADS_FIRST.has(first.key)) return 'drop'
    if (!fullName && person && INSTITUTION_HEADS.has(last.key)) return 'organization'
  }
  // An organisation does not come before "effect", "law", "triangle": "the Coriolis effect" names an idea.
  if (!person && after && !after.cap && THING_HEADS.has(after.key)) return 'drop'
  // A team or a group named by a plural noun: "Broncos", "Carolina Panthers", "Lost Boys".
  if (person && !last.possessive && teamName(tokens, from, to, flagsOfKey)) return 'drop'
  // A work: followed by "series", "novel", …, or right after "the movie", "the painting", ….
  if (!single && after && WORKS.has(after.key) && !after.cap && !authorName(tokens, from, to, flagsOf))
    return 'drop'
  if (
    from > 0 &&
    WORKS_BEFORE.has(tokens[from - 1].key) &&
    !tokens[from - 1].cap &&
    workGap(text, tokens[from - 1], first)
  )
    return 'drop'
  // "the Mona Lisa": a person's name takes no article; a family does ("the Doubtfire sisters").
  if (person && before && before.key === 'the' && !last.possessive && (!single || plural(last, lastFlags))) {
    // "the Luke Batty inquest", "the Doubtfire sisters": a name as a modifier, or a family, is still a name.
    if (!after || after.cap || FUNCTION_AFTER.has(after.key)) return 'drop'
  }
  if (d.type === 'ORGANIZATION' && single && first.allCaps && !(lastFlags & ORG_SUFFIX)) {
    // Two letters are a unit or a term ("AC", "DC", "MA") unless named as one body ("the EU", "the UN").
    if (first.key.length <= 2 && !(before && before.key === 'the')) return 'drop'
    if (definesTerm(text, tokens, from)) return 'drop'
  }
  // A plural acronym is a term, not a name: "ETFs", "DVDs", "NPCs".
  if (single && pluralAcronym(text, first)) return 'drop'
  // A field label: "Budget: $3,000".
  if (
    single &&
    text.charCodeAt(last.end) === 58 &&
    flagsOf(first) & (COMMON | DICTIONARY) &&
    !(flagsOf(first) & (FIRST | LAST))
  )
    return 'drop'
  // "Wakati Julia": an unknown sentence-start word before a known first name is no part of it.
  if (
    person &&
    !single &&
    first.sentenceStart &&
    !(flagsOf(first) & (FIRST | LAST)) &&
    flagsOf(tokens[from + 1]) & FIRST &&
    spaced(units, first, tokens[from + 1])
  )
    return 'trim'
  return 'keep'
}

/** Month names and abbreviations of English that are also first names or read as names ("Jan", "May", "Dec"). */
const MONTHS = new Set([
  'jan',
  'january',
  'feb',
  'february',
  'mar',
  'march',
  'apr',
  'april',
  'may',
  'jun',
  'june',
  'jul',
  'july',
  'aug',
  'august',
  'sep',
  'sept',
  'september',
  'oct',
  'october',
  'nov',
  'november',
  'dec',
  'december',
])
/**
 * A day number after a month, then punctuation, the end, a dash or a word of a date range: "1, 2023", "31st to",
 * "5 at noon" (a year "2023" is no day; "Jan 10 apples", "give May 5 dollars" are a name and a count).
 */
const DAY_AFTER =
  /^\.? (?:[1-9]|[12]\d|3[01])(?:st|nd|rd|th)?(?:$|[,.;:)\]]|\s*[-–]|\s+(?:to|and|through|until|till|at|from)\b)/

/** A month before a day number: "Jan 1, 2023", "Dec 5". */
function monthDay(text: string, tokens: readonly Token[], from: number, to: number): boolean {
  if (from !== to || !MONTHS.has(tokens[from].key)) return false
  return DAY_AFTER.test(text.slice(tokens[from].end, tokens[from].end + 12))
}

/**
 * A word that is no known name right after the colon of a sentence of at least three words ending in a
 * lower-case word, before a lower-case word, in a sentence that ends its line with a full stop or a question
 * mark: "la question suivante : Mentionnez la planète …." (a capital there starts a sentence; a field label
 * "Name: Anna" has fewer words, a known name is kept, a headline has no full stop).
 */
function afterQuestionColon(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  from: number,
  to: number,
  flagsOf: Flags,
): boolean {
  const first = tokens[from]
  if (from < 3 || flagsOf(first) & (FIRST | LAST)) return false
  let k = first.start - 1
  while (k >= 0 && units[k] === 32) k--
  if (k < 0 || units[k] !== 58) return false
  const next = from + 1 < tokens.length ? tokens[from + 1] : undefined
  if (!next || next.cap || next.start - first.end > 2 || /[.,;:!?]/.test(text.slice(first.end, next.start)))
    return false
  if (to > from + 1) return false
  // The three words before the colon are on its line, the last in lower case ("question suivante :", "seguente
  // domanda:"; not a heading such as "Irish News: Mickey …").
  const line = text.lastIndexOf('\n', k)
  if (tokens[from - 3].start <= line || tokens[from - 1].cap || tokens[from - 1].end > k + 1) return false
  // The sentence after the colon ends its line with a full stop or a question mark; a headline does not
  // ("… in economy: Wynne http://…", "Watch a live report: Middleton parents visit …").
  let end = text.indexOf('\n', first.end)
  if (end < 0) end = text.length
  const rest = text.slice(first.end, end).trimEnd()
  return /[.?!…]["'»”)]?$/.test(rest) && !/^\s*https?:/.test(rest)
}

/** True when every word of tokens [from, to] is a German word that is no name. */
function germanWords(tokens: readonly Token[], from: number, to: number, flagsOf: Flags): boolean {
  for (let k = from; k <= to; k++) if (!(flagsOf(tokens[k]) & GERMAN)) return false
  return true
}

/** True when exactly one space separates the two tokens. */
function spaced(units: Uint16Array, a: Token, b: Token): boolean {
  return b.start - a.end === 1 && units[a.end] === 32
}

/** Between a work word and a title: spaces, a colon or quotes; a full stop only before a new line ("movie.\n\nShutter Island"). */
function workGap(text: string, a: Token, b: Token): boolean {
  const gap = text.slice(a.end, b.start)
  if (gap.length > 6 || !/^[.:]?\s*["'“‘«]?$/.test(gap)) return false
  return !gap.startsWith('.') || gap.includes('\n')
}

/**
 * True when the acronym stands in brackets after the lower-case words it
 * abbreviates ("greatest common divisor (GCD)", "Few-shot learning (FSL)"): a
 * term of the subject, not an organisation, whose name would be capitalised.
 */
function definesTerm(text: string, tokens: readonly Token[], at: number): boolean {
  const acronym = tokens[at]
  if (text.charCodeAt(acronym.start - 1) !== 40 || text.charCodeAt(acronym.end) !== 41) return false
  const letters = acronym.key.length
  const head = text.slice(Math.max(0, acronym.start - 1 - 12 * letters), acronym.start - 1)
  const all = head.split(/[\s-]+/)
  const words = all.filter(Boolean).slice(-letters)
  if (words.length < letters) return false
  for (let k = 0; k < letters; k++) {
    if (words[k][0].toLowerCase() !== acronym.key[k]) return false
    // Lower case, except the first word at the start of a sentence ("Few-shot learning (FSL)").
    if (words[k][0] !== words[k][0].toLowerCase() && (k > 0 || !sentenceBefore(head, words[0]))) return false
  }
  return true
}

/** True when `word`, at its last occurrence in `head`, starts a sentence or line. */
function sentenceBefore(head: string, word: string): boolean {
  const before = head.slice(0, head.lastIndexOf(word)).replace(/[ \t]+$/, '')
  return before === '' || /[.!?:\n]$/.test(before)
}

/** True for two or more capitals and a lower-case plural "s" ("DVDs", "ETFs"). */
function pluralAcronym(text: string, t: Token): boolean {
  const word = text.slice(t.start, t.end)
  return /^\p{Lu}{2,}s$/u.test(word)
}
