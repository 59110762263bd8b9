import type { Detection } from '../pii-types.js'
import { COMMON, DICTIONARY, FIRST, GERMAN, LANGUAGE, LAST, ORG_SUFFIX, PLACE, TITLE } from './lexicon.js'
import { type Language, untrainedLanguage } from './refusal-evidence.js'
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
  'hypothesis',
  'conjecture',
  'formula',
  'comet',
  'constant',
  'lemma',
  'algorithm',
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
  'county',
  'service',
  'address',
  'speech',
])

/** The English words of {@link THING_HEADS_FIRST}, which take no "de"/"di" connector. */
const ENGLISH_HEADS_FIRST = new Set(['mount', 'mt', 'planet', 'kingdom', 'lake', 'cape', 'fort', 'isle'])

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
  // Russian events (0.6.5): "Чемпионат Экстракласса", "Кубок Англии".
  'чемпионат',
  'кубок',
  'турнир',
  'олимпиада',
  // English names that put the kind of place first (0.6.4): "Mount Everest", "Planet Zogar", "Kingdom B".
  ...ENGLISH_HEADS_FIRST,
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
  // Businesses (0.6.4): "Le Marais Boutique", "Sterling Auto Store" are firms, masked as such, not people.
  'boutique',
  'hotel',
  'restaurant',
  'bakery',
  'store',
  'shop',
  'cafe',
  'café',
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
  /(?:^|[.!?:\n]\s*|\b(?:and|now)\s+)(?:you are|you're|you’re|imagine (?:that )?you(?: are|'re|’re)|role[- ]?play(?:ing)?(?: as)?|act as|pretend (?:to be|you are)|assume the (?:role|persona) of|take on the (?:role|persona) of|play the role of|you will play)\s+(?:(?:dr|sir|prof|professor|captain|king|queen|lord|lady|general|president|emperor|saint|st)\.?\s+)?$/i
/**
 * A persona taken anywhere in a request (0.6.6): "Write a letter from the perspective of Amelia Earhart", "Step
 * into the shoes of Gollum", "Write a letter as Charles Darwin", "You are tasked with impersonating Gollum".
 */
const PERSONA_VIEW =
  /\b(?:from the (?:perspective|point of view|viewpoint) of|in(?:to)? the shoes of|impersonat(?:e|ing)|(?:letter|speech|diary entry|monologue|soliloquy|poem|tweet) as|as if you were)\s+(?:(?:Dr|Sir|Prof|Professor|Captain|King|Queen|Lord|Lady|General|President|Emperor|Saint|St)\.?\s+)?$/u
/**
 * Characters of a requested dialogue (0.6.6), multi-word names only: "Imagine a conversation between Abraham
 * Lincoln and George Washington", "Write a dialogue between Julius Caesar and a modern-day politician", "a
 * hypothetical debate between …". Not "Write a summary of the conversation between John Smith and …" (a report of
 * a real one: more than two words between the article and the noun).
 */
const DIALOGUE_BETWEEN =
  /\b(?:[Ii]magine|[Ww]rite|[Cc]reate|[Cc]ompose|[Ss]cript|hypothetical|fictional|imaginary)\s+(?:(?:a|an)\s+)?(?:(?!of\s)[\p{Ll}-]+\s+){0,2}(?:dialogue|debate|conversation|discussion|interview|exchange|chat) between\s+(?:(?:two|several|three) [\p{Ll}\s-]{0,30}?(?:figures|people|leaders|scientists|characters)?,?\s+)?(?:(?:\p{Lu}[\p{L}.'’-]*\s+){1,4}and\s+)?$/u

/**
 * A persona described before its name (0.6.5): "You are the famed poet, William Shakespeare", "Assume you are
 * astronaut Neil Armstrong", "You are roleplaying as Neil Armstrong", "Imagine you are a historical figure like
 * Leonardo da Vinci". Up to four lower-case words between the request and the name, none a preposition or a verb
 * of serving ("You are the assistant of Elon Musk", "You are helping Mark Jensen" keep the name); a multi-word name
 * only. Case matters, so the words between are written in lower case.
 */
const PERSONA_DESCRIBED =
  /(?:^|[.!?:\n]\s*|\b(?:and|now)\s+)(?:[Yy]ou are|[Yy]ou're|[Ii]magine (?:that )?you(?: are|'re|’re)|[Ii]magine being|[Aa]ssume you are|[Rr]ole-?play(?:ing)? as|[Rr]ole play as|[Aa]ct as|[Pp]retend (?:to be|you are)|[Tt]ake on the (?:role|persona) of|[Pp]lay(?:ing)? the role of|[Yy]ou will play)\s+(?:(?:the|a|an)\s+)?(?:(?!(?:for|of|to|with|from|by|at|in|on|and|or|but|who|that|which|whose|named|called|helping|assisting|working|talking|speaking|chatting|writing|married|related|serving|supporting)[\s,])[\p{Ll}-]+,?\s+){1,4}(?:(?:Dr|Sir|Prof|Professor|Captain|King|Queen|Lord|Lady|General|President|Emperor|Saint|St)\.?\s+)?$/u
/**
 * A famous name (0.6.5): "the famous inventor Nikola Tesla", "a famous John Wyndham novel", "historical figures
 * like Abraham Lincoln"; a multi-word name only.
 */
const FAMOUS_BEFORE =
  /(?:\b(?:[Ff]amous|[Ff]amed|[Rr]enowned|[Ll]egendary|[Cc]elebrated|[Ii]conic|[Hh]istorical|[Ww]orld-renowned|[Ww]ell-known)\s+(?:[\p{Ll}-]+\s+){0,2}|\b(?:figures?|celebrities|icons?|characters?)\s+(?:like|such as)\s+)(?:(?:Dr|Sir|Prof|Professor|Captain|King|Queen|Lord|Lady|General|President|Emperor|Saint|St)\.?\s+)?$/u
/** A fictional character named so: "the iconic character Tony Montana", "Shakespeare's character, Hamlet". */
const CHARACTER_BEFORE =
  /\b(?:[Cc]haracters?|[Pp]ersonajes?|[Pp]ersonnages?|[Ff]igur)(?:,|\s+named|\s+called)?\s+$/u
/** "As X, how would you …", "As the renowned explorer Amelia Earhart, …": a sentence opened by "As" and the persona. */
const AS_PERSONA =
  /(?:^|[.!?:\n]\s*)[\s"'“*#>-]*As\s+(?:(?:the|a|an)\s+)?(?:[\p{Ll}-]+\s+){0,3}(?:\p{Lu}[\p{L}-]*['’]s\s+(?:character,?\s+)?)?(?:(?:Dr|Sir|Prof|Professor|Captain|King|Queen|Lord|Lady|General|President|Emperor|Saint|St)\.?\s+)?$/u
/** What follows ", " after an "As" persona: a request to the assistant ("how would you", "explain", "provide"). */
const AS_REQUEST =
  /^(?:'s\s+\p{L}+)?,\s+(?:how|what|why|would|could|can|do|please|you|your|explain|describe|write|provide|give|tell|share|advise|offer|respond|reply|answer|compose|discuss|reflect|convince|persuade|create|imagine|narrate|recount|express)\b/u

/** A persona the assistant is asked to play or a famous name, by the words before (and for "As", after) it. */
function persona(text: string, first: Token, last: Token, multi: boolean): boolean {
  const before = text.slice(Math.max(0, first.start - 80), first.start)
  if (PERSONA.test(before.slice(-40))) return true
  // Each pattern below is tried only when a word it needs is there: most names have none of them before.
  const lower = before.toLowerCase()
  if (CHARACTER_WORDS.some((w) => lower.includes(w)) && CHARACTER_BEFORE.test(before)) return true
  // "As Shakespeare's Juliet, provide …": a single name as a persona when an author's possessive is on either side.
  if (
    before.includes('As ') &&
    (multi || last.possessive || /['’]s\s+(?:character,?\s+)?$/u.test(before)) &&
    AS_PERSONA.test(before) &&
    AS_REQUEST.test(text.slice(last.end, last.end + 40))
  )
    return true
  if (VIEW_WORDS.some((w) => lower.includes(w)) && PERSONA_VIEW.test(before)) return true
  if (!multi) return false
  if (PERSONA_WORDS.some((w) => lower.includes(w)) && PERSONA_DESCRIBED.test(before)) return true
  if (lower.includes(' between ') && DIALOGUE_BETWEEN.test(before)) return true
  return FAMOUS_WORDS.some((w) => lower.includes(w)) && FAMOUS_BEFORE.test(before)
}
/** Words {@link CHARACTER_BEFORE}, {@link PERSONA_DESCRIBED} and {@link FAMOUS_BEFORE} cannot match without. */
const CHARACTER_WORDS = ['charact', 'personaj', 'personnag', 'figur']
const PERSONA_WORDS = ['you', 'imagine', 'play', 'act as', 'pretend', 'take on', 'assume']
const VIEW_WORDS = [' of ', 'shoes', 'impersonat', ' as ', 'if you were']
const FAMOUS_WORDS = [
  'famous',
  'famed',
  'renowned',
  'legendary',
  'celebrated',
  'iconic',
  'historical',
  'well-known',
  ' like ',
  ' such as ',
]

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
  /** The text's language when the tagger saw no training sentence of it, found on the first doubtful person. */
  let language: Language | undefined
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
    // …and counts them: "Jean hat 30 Lutscher", "3,00 US-Dollar pro Gallone" (0.6.4; nouns the word list lacks).
    if (d.type === 'PERSON' && from === to && countedNoun(text, tokens, from, flagsOf)) {
      german ??= germanText(tokens)
      if (german) continue
    }
    if (monthDay(text, tokens, from, to)) continue
    // "On Mondays, Wednesdays, and Fridays": a day of the week, plural too (0.6.4).
    if (from === to && WEEKDAYS.has(tokens[from].key)) continue
    // A word of a language without training sentences: "Thành phố …", "Stratigrafi uzmanları …".
    if (d.type === 'PERSON' && untrainedWord(units, tokens, from, to)) {
      language ??= untrainedLanguage(text, units, tokens)
      if (language !== '' && languageWord(text, tokens[from], from < to, language, flagsOf)) continue
    }
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

/**
 * Articles of French, Spanish and Italian (and the French "au"/"aux"): "la Gioconda", "le Grandi Piramidi". Not the
 * German "der", "die", "das": they are relative pronouns too ("die Gesetzgebung, auf die Fátima Báñez so stolz
 * ist"), and German joins a capitalised noun to the name ("der Historiker Götz Aly"): 20 names of the training
 * documents were lost with them.
 */
const FOREIGN_ARTICLES = new Set(['la', 'le', 'les', 'el', 'los', 'las', 'il', 'lo', 'gli', 'au', 'aux'])
/** Particles of names before an article: "von der Leyen", "de la Cruz", "van der Berg". */
const PARTICLE_BEFORE_ARTICLE = new Set([
  'von',
  'van',
  'de',
  'di',
  'da',
  'del',
  'della',
  'zu',
  'vom',
  'ten',
  'ter',
])

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

/** Russian one-letter words: prepositions, conjunctions, "я". */
const CYRILLIC_ONE_LETTER = new Set(['у', 'в', 'с', 'к', 'о', 'и', 'а', 'я'])

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
  // 0.6.5: "the assassination of Archduke Franz Ferdinand", "Mark Twain's characters".
  'assassination',
  'coronation',
  'abdication',
  'characters',
  // 0.6.6: "Angela Merkel's views on climate change", "Tim Cook's vision", "Genghis Khan's empire".
  'views',
  'vision',
  'ideas',
  'research',
  'strategies',
  'empire',
  'dynasty',
  'administration',
  'leadership',
  'policies',
  'accomplishments',
  'achievements',
  'philanthropy',
  'conquests',
])

/** Words of code after a language's name: "Ruby code", "a Ruby script", "Julia syntax". */
const CODE_AFTER = new Set([
  ...[
    'code',
    'script',
    'scripts',
    'program',
    'programs',
    'function',
    'functions',
    'snippet',
    'class',
    'method',
  ],
  ...['gem', 'gems', 'syntax', 'version', 'interpreter', 'developer', 'developers', 'programmer'],
  ...[
    'programmers',
    'library',
    'libraries',
    'equivalent',
    'implementation',
    'array',
    'hash',
    'module',
    'file',
  ],
])
/** Words before a language's name in a request about code: "in Ruby", "to Ruby", "using Julia". */
const CODE_BEFORE = new Set(['in', 'to', 'into', 'using', 'with'])

/**
 * True when the name at `at` is a programming language: a word of code after it ("Ruby code"), or "in"/"to"
 * before it in a text that names another language that is no name ("Translate this PHP snippet to Ruby"; not "I
 * sent the code to Julia").
 */
function languageOfCode(tokens: readonly Token[], at: number, flagsOf: Flags): boolean {
  const next = tokens[at + 1]
  if (next && !next.cap && CODE_AFTER.has(next.key)) return true
  const previous = tokens[at - 1]
  if (previous === undefined || !CODE_BEFORE.has(previous.key)) return false
  // Written capitalised: "go", "d", "self" are languages too.
  return tokens.some(
    (t) =>
      t.cap && t.key !== tokens[at].key && (flagsOf(t) & (LANGUAGE | FIRST | LAST | COMMON)) === LANGUAGE,
  )
}

/**
 * Verbs of making a work or an idea, before "by" and the name (0.6.6): "movies directed by Spike Lee", "Which
 * novel written by Oscar Wilde …?", "the theory proposed by …". Not "created", "designed", "sent", "made": said
 * of anyone's spreadsheet or e-mail.
 */
const MADE_BY = new Set([
  'directed',
  'written',
  'composed',
  'painted',
  'authored',
  'illustrated',
  'sculpted',
  'sung',
  'invented',
  'discovered',
  'coined',
  'proposed',
  'formulated',
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
  // 0.6.6: questions put as tasks ("Count the number of United Airlines flights …"). Not "translate", "extract",
  // "classify": their text is data given to work on, which may be real ("Translate: … works for Revolver Records").
  'count',
  'return',
  'rank',
  'define',
  'outline',
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
      (KNOWN_FOR.has(noun.key) || (prep.key === 'by' && MADE_BY.has(noun.key))) &&
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
  if (!cue) return persona(text, first, last, from < to)
  return askedAbout(text, units, first, last)
}

/**
 * True when the sentence around a name is a question (ends in "?") or opens with a request word; with `imperative`,
 * a question word without a "?" does not count ("When the A-League began in 2005 …").
 */
function askedAbout(
  text: string,
  units: Uint16Array,
  first: Token,
  last: Token,
  imperative = false,
): boolean {
  const sentence = sentenceAround(text, units, first.start, last.end)
  if (units[sentence.to] === 63) return true
  if (!sentence.opened) return false
  const opening = /^[\s"'“‘«*#>-]*(\p{L}+)/u.exec(text.slice(sentence.from, first.start))
  if (opening === null) return false
  const word = opening[1].toLowerCase()
  return REQUEST_START.has(word) && !(imperative && QUESTION_WORDS.has(word))
}
const QUESTION_WORDS = new Set(['who', 'what', 'when', 'where', 'why', 'how', 'which', 'whose'])

/**
 * An organisation without a legal suffix asked about (0.6.6): "What is the role of UNESCO?", "Explain how the IPCC
 * works", "Count the United Airlines flights …". A firm or a public body is no person's data; in a question it is
 * the topic, not a party. Not a speaker's label ("SETimes: Can you …?", "Folha -- Quem vence?").
 */
function organizationAskedAbout(text: string, units: Uint16Array, first: Token, last: Token): boolean {
  if (/^\s*(?::|--|–|—)/u.test(text.slice(last.end, last.end + 4))) return false
  return askedAbout(text, units, first, last, true)
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
  if (
    d.type === 'ORGANIZATION' &&
    !(lastFlags & ORG_SUFFIX) &&
    organizationAskedAbout(text, units, first, last)
  )
    return 'drop'

  // "a Ruby code", "Translate this PHP snippet to Ruby": a programming language that is also a name (0.6.6).
  if (person && single && lastFlags & LANGUAGE && languageOfCode(tokens, from, flagsOf)) return 'drop'
  // Titles, interjections and kinds of people (0.6.5).
  if (titleOrInterjection(text, units, tokens, from, to, person, flagsOf)) return 'drop'
  // "the author of Frankenstein", "the character of Dr. Frankenstein": a work or a character, not a person.
  if (person && from > 0) {
    const near = text.slice(Math.max(0, first.start - 30), first.start)
    if (near.includes(' of ') && WORK_OF.test(near)) return 'drop'
  }
  // "John Doe", "Jane Doe": the placeholder of an unknown or made-up person.
  if (person && !single && last.key === 'doe' && flagsOf(first) & FIRST) return 'drop'

  // A title in quotes: after a work noun ("the book 'Chrono Divergence'"), or a quoted title-case phrase.
  if (!(lastFlags & ORG_SUFFIX) && quotedTitle(text, units, d, person)) return 'drop'
  // A work named by a character in it: "the Cheshire Cat from Alice in Wonderland".
  if (person && characterWork(text, tokens, from, to)) return 'drop'
  // An idea or a thing named after a person: "Halley's Comet", "Heron's formula", "Ponzi schemes".
  if (person && eponym(text, tokens, to, flagsOf)) return 'drop'
  // A place named after its kind: "a planet named Xorbia", "the kingdom of Eldoria", "Teatro de Verano".
  if (placeOfKind(text, tokens, from, person)) return 'drop'

  // Things, places, events: "Roman Empire", "Oxford Hall". A first name + surname pair stays ("Emma Stone").
  if (!single && !last.allCaps) {
    const firstFlags = flagsOf(first)
    // "Emma Stone", "Mr. Park": a first name or a title before a surname-like head is a person's name.
    const fullName =
      person && ((to === from + 1 && firstFlags & FIRST && lastFlags & (FIRST | LAST)) || firstFlags & TITLE)
    if (!fullName && THING_HEADS.has(last.key) && !(lastFlags & ORG_SUFFIX)) return 'drop'
    // Head first, as in the Romance and other languages: "Torre Eiffel", "Mercado del Grainger".
    // Also an organisation put so ("Mount Everest", "Kingdom B"), unless an institution ends it ("Mount St. Vincent
    // University").
    if (
      THING_HEADS_FIRST.has(first.key) &&
      (person || (ENGLISH_HEADS_FIRST.has(first.key) && !INSTITUTION_HEADS.has(last.key)))
    )
      return 'drop'
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
  // "la Mona Lisa", "le Grandi Piramidi di Giza", "au Caboose" (0.6.4): the articles of Romance languages, which
  // put no name before a noun; a lone known name stays ("la Maria" of spoken Italian).
  if (
    person &&
    before &&
    !before.cap &&
    FOREIGN_ARTICLES.has(before.key) &&
    !last.possessive &&
    (!single || !(flagsOf(first) & (FIRST | LAST))) &&
    !(from >= 2 && PARTICLE_BEFORE_ARTICLE.has(tokens[from - 2].key))
  )
    return 'drop'
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
  // "У Дороти", "В Марины": a one-letter Russian preposition (or "и", "а", "я") opening a sentence is no initial
  // (an initial takes a dot) and no part of the name (0.6.5).
  if (person && !single && first.end - first.start === 1 && !first.dot && CYRILLIC_ONE_LETTER.has(first.key))
    return 'trim'
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

/**
 * Names that are no person's (0.6.5): a name opened by a capitalised "The" inside a sentence is a title of a work,
 * ship or band ("the legendary ship, The Black Pearl", "… exercise on The Great Gatsby"); a doubled word is an
 * interjection ("Ha-ha"); a lone word ending like a demonym ("-ian", "-ese", …) after "a"/"an" (and at most one
 * lower-case word) is a kind of people ("an upset Martian", "a Martian linguist"): a name takes no indefinite article; two things or events joined by "and" ("WTA
 * Championships and Australian"); in Turkish text a compound of a noun with the suffix -(s)I ("Norman Kalesi'nin",
 * "Sakson Bahçesi": castle, garden of).
 */
function titleOrInterjection(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  from: number,
  to: number,
  person: boolean,
  flagsOf: Flags,
): boolean {
  const first = tokens[from]
  if (
    from < to &&
    !first.sentenceStart &&
    text.startsWith('The', first.start) &&
    first.end - first.start === 3 &&
    !(flagsOf(tokens[to]) & ORG_SUFFIX) &&
    !SELF_NAMED.test(text.slice(Math.max(0, first.start - 30), first.start))
  )
    return true
  const value = text.slice(first.start, tokens[to].end)
  if (value.includes('-') && /^(\p{L}+)-\1$/iu.test(value)) return true
  for (let k = from; k < to; k++)
    if (THING_HEADS.has(tokens[k].key) && tokens[k + 1].key === 'and' && !tokens[k + 1].cap) return true
  if (!person) return false
  if (from === to && !first.possessive && from > 0) {
    let k = from - 1
    if (!tokens[k].cap && !ARTICLES_A.has(tokens[k].key) && k > 0 && tokens[k].end + 1 === first.start) k--
    if (
      ARTICLES_A.has(tokens[k].key) &&
      !tokens[k].cap &&
      /^\s+$/.test(text.slice(tokens[k].end, tokens[k + 1].start))
    )
      return DEMONYM.test(first.key) && !(flagsOf(first) & (FIRST | LAST))
  }
  // A Turkish compound "Norman Kalesi", "Sakson Bahçesi Lehçe'de": a later word whose stem ends in -sI.
  for (let k = from + 1; k <= to; k++) {
    const word = text.slice(tokens[k].start, tokens[k].end)
    const apostrophe = word.search(/['’]/u)
    const stem = apostrophe < 0 ? word : word.slice(0, apostrophe)
    if (
      stem.length > 4 &&
      TURKISH_SI.has(stem.charCodeAt(stem.length - 1)) &&
      stem.endsWith('s', stem.length - 1)
    )
      return turkishSuffix(text, tokens, from, to) || untrainedLanguage(text, units, tokens) === 'tr'
  }
  return false
}
/** The vowels of the Turkish suffix -sI: ı i u ü. */
const TURKISH_SI = new Set([0x131, 0x69, 0x75, 0xfc])
/** A Turkish case suffix after an apostrophe on a word of the span: "Kalesi'nin", "Lehçe'de". */
function turkishSuffix(text: string, tokens: readonly Token[], from: number, to: number): boolean {
  const span = text.slice(tokens[from].start, tokens[to].end + 6)
  return /\p{L}['’](?:n[ıiuü]n|[dt][ae]n?|y?[ae]|y?[ıiuü]|[ıiuü]n|l[ae]r\p{Ll}*)(?![\p{L}])/u.test(span)
}
/**
 * Endings of words for kinds of people and beings ("Martian", "Venusian", "Londoner" is left: "-er" ends surnames
 * too). Only these after "a"/"an": Slovak and Czech write "a" for "and" before names, and English "a Langejans
 * guitar" puts a surname before a noun.
 */
const DEMONYM = /(?:ian|ean|ese|ish|ite|ling|oid)$/
/** "the author of Frankenstein", "the creator of Sherlock Holmes", "the character of Dr. Frankenstein". */
const WORK_OF =
  /\b(?:author|creator|writer|composer|director|characters?) of\s+(?:(?:the|Dr|Mr|Mrs|Ms|Sir|Captain)\.?\s+)?$/
/** A self-introduction or naming before a name: "jeg hedder The Fabulous Russella" is a person's stage name. */
const SELF_NAMED =
  /(?:name is|name's|I'm|I am|hedder|heter|heiße|heet|called|named|me llamo|je m'appelle|mi chiamo|jmenuji se|volám sa)\s+$/i
/** Indefinite articles: a name takes none ("an upset Martian"). */
const ARTICLES_A = new Set(['a', 'an'])

/** English days of the week, singular and plural ("Fridays" was read as an organisation). */
const WEEKDAYS = new Set(
  ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].flatMap((d) => [d, `${d}s`]),
)

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

/**
 * A word that is no known first name right after a number or "pro" ("30 Lutscher", "pro Gallone"): in German text a
 * noun being counted. "Mark gibt Jan 10 Äpfel" keeps "Jan" (the count follows the name).
 */
function countedNoun(text: string, tokens: readonly Token[], at: number, flagsOf: Flags): boolean {
  const t = tokens[at]
  if (!t.cap || t.allCaps || flagsOf(t) & FIRST) return false
  const before = text.slice(Math.max(0, t.start - 12), t.start)
  // Not after an ordinal or a sentence's end: "Welt 3. Popper zufolge …".
  return /(?:^|[\s(])(?:\d(?:[\d.,]*\d)?|pro) $/.test(before)
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

/**
 * A word that may be an ordinary word of a language the tagger has no training sentence of (0.6.4): a lone
 * capitalised word before a lower-case word ("Thành phố nào …", "cho Tổ chức …", "Stratigrafi uzmanları …",
 * "Mpishi alinunua …"), or a span with a lower-case word inside. {@link languageWord} decides by the language.
 */
function untrainedWord(units: Uint16Array, tokens: readonly Token[], from: number, to: number): boolean {
  for (let k = from + 1; k <= to; k++) if (!tokens[k].cap) return true
  const first = tokens[from]
  if (from !== to || first.allCaps || first.possessive) return false
  const next = tokens[from + 1]
  return next !== undefined && !next.cap && spaced(units, first, next)
}

/** A Swahili verb: subject prefix, tense marker, stem ("Alikula", "Anampeleka", "Wamekubali", "Akiunda"). */
const SWAHILI_VERB = /^(?:a|wa|ni|u|tu|m|ki|vi|li|ya|i|zi|ku|hu)(?:li|na|me|ta|ki|ka|nge)\p{L}{3,}$/u

/**
 * Whether the word found by {@link untrainedWord} is a word of the language, not a name. Vietnamese, which
 * capitalises every syllable of a name but only the first of a sentence or of another proper noun ("Tổ chức",
 * "Đồng bằng"): a syllable with a letter outside ASCII ("Thành", "Độ", "Lý"; "Luther đã …" stays), or a span
 * with a lower-case syllable. Outside Vietnamese only a word opening a sentence that is no known first or last
 * name — Turkish and Romanian: one that takes no suffix after an apostrophe (Turkish writes one after names:
 * "Luther'in"); Swahili: a verb by its prefixes ("Alikula", "Anawauliza"; the nouns "Mpishi", "Hatimaye" are not
 * told from names such as "Nissa", and stay).
 */
function languageWord(
  text: string,
  t: Token,
  lowerInside: boolean,
  language: Language,
  flagsOf: Flags,
): boolean {
  if (language === 'vi') return lowerInside || /[\u0080-\uffff]/.test(text.slice(t.start, t.end))
  if (lowerInside || !t.sentenceStart || flagsOf(t) & (FIRST | LAST)) return false
  if (language === 'sw') return SWAHILI_VERB.test(t.key)
  return !/['’]\p{L}/u.test(text.slice(t.start, t.end + 2))
}

/**
 * The findings of all-lower-case text without those in Vietnamese text (0.6.4): there every syllable is a name
 * to the gazetteer ("lập luận", "từ thực"), and a name in lower case cannot be told from words.
 */
export function withoutVietnameseWords(
  text: string,
  units: Uint16Array,
  tokens: readonly Token[],
  found: Detection[],
): Detection[] {
  if (found.length === 0 || untrainedLanguage(text, units, tokens) !== 'vi') return found
  return found.filter((d) => d.type !== 'PERSON' || /\p{Lu}/u.test(text.slice(d.start, d.end)))
}

/** Nouns of works and products before a quoted title: "the book 'Chrono Divergence'", "a drug named 'Drugalin'". */
const WORK_CUES = new Set([
  ...WORKS,
  'title',
  'titled',
  'entitled',
  'article',
  'story',
  'stories',
  'chapter',
  'essay',
  'paper',
  'documentary',
  'podcast',
  'magazine',
  'newspaper',
  'track',
  'anthem',
  'brand',
  'product',
  'app',
  'drug',
  'potion',
  'dish',
  'cocktail',
  'video',
  'videogame',
])

/** Words a title writes in lower case between its capitalised words: "The Old Man and the Sea". */
const TITLE_FUNCTION = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'in',
  'on',
  'at',
  'to',
  'for',
  'with',
  'from',
  'by',
  'under',
  'over',
  'through',
  'into',
  'upon',
])

const QUOTE_PAIRS: Record<string, string> = {
  '"': '"',
  "'": "'",
  '“': '”',
  '‘': '’',
  '«': '»',
  '„': '“',
  '*': '*',
  _: '_',
}

/**
 * True when the finding lies inside a pair of quotes (or `*`/`_` emphasis) on its line whose content is a title:
 * the quote follows a work or product noun within three words ("the book 'Chrono Divergence'", "a drug named
 * 'Drugalin'"), or, for a person, the content is a title-case phrase of two or more words that starts with an article or holds
 * a lower-case function word between capitalised words ("'The Old Man and the Sea'", "'Alice's Adventures in
 * Wonderland'"). A quoted name ("the contestant named 'Tabatha Gehling'", "users named \"Sarah Williams\"") stays.
 */
function quotedTitle(text: string, units: Uint16Array, d: Detection, person: boolean): boolean {
  const line = text.lastIndexOf('\n', d.start - 1) + 1
  if (d.start - line > 400) return false
  let open = -1
  let close = 0
  for (let i = line; i < d.start; i++) {
    const c = units[i]
    if (open >= 0) {
      if (c === close && closes(text, i)) open = -1
    } else if (quote(c) && opens(text, i)) {
      open = i
      close = QUOTE_PAIRS[text[i]].charCodeAt(0)
    }
  }
  if (open < 0) return false
  let end = -1
  for (let i = d.end; i < units.length && i < d.end + 200; i++) {
    const c = units[i]
    if (c === 10) return false
    if (c === close && closes(text, i)) {
      end = i
      break
    }
  }
  if (end < 0) return false
  // The words before the quote, back to the clause's start: "crime novel. The protagonist, \"Harvey Talbot\"" stays.
  const lead = text.slice(Math.max(line, open - 40), open)
  const clause = lead.slice(
    Math.max(lead.lastIndexOf('.'), lead.lastIndexOf(','), lead.lastIndexOf('!'), lead.lastIndexOf('?')) + 1,
  )
  const before = clause.toLowerCase().match(/\p{L}+/gu) ?? []
  // A title is short: a longer quote after "article" is a passage or a headline that may name its people ("an
  // article on \"The Art of …: Lessons from Arianna Huffington's Philosophy\"").
  if (before.slice(-3).some((w) => WORK_CUES.has(w))) return words(text, open + 1, end) <= MAX_TITLE_WORDS
  // Firms and bands are quoted under their own title-case names ("The Space Bastards", "Statens Museum for Kunst").
  return person && titleCase(text.slice(open + 1, end))
}

/** The most words a quoted title after a work noun has ("Harry Potter and the Philosopher's Stone": 6). */
const MAX_TITLE_WORDS = 10

/** Words (runs without spaces) in text[from, to). */
function words(text: string, from: number, to: number): number {
  let n = 0
  let inWord = false
  for (let i = from; i < to; i++) {
    const space = text.charCodeAt(i) <= 32
    if (!space && !inWord) n++
    inWord = !space
  }
  return n
}

/** True for a code unit of {@link QUOTE_PAIRS}: " ' * _ « ‘ “ „. */
function quote(c: number): boolean {
  return (
    c === 34 || c === 39 || c === 42 || c === 95 || c === 0xab || c === 0x2018 || c === 0x201c || c === 0x201e
  )
}

/** An opening quote: after the line start, a space or an opening bracket, before a letter or digit. */
function opens(text: string, i: number): boolean {
  return (i === 0 || /[\s([{:]/.test(text[i - 1])) && /[\p{L}\p{N}]/u.test(text[i + 1] ?? '')
}

/** A closing quote: after a letter, digit or punctuation, before a space, punctuation or the end. */
function closes(text: string, i: number): boolean {
  return /[^\s]/.test(text[i - 1] ?? ' ') && !/[\p{L}\p{N}]/u.test(text[i + 1] ?? '')
}

/** A title-case phrase: "The Old Man and the Sea", "Alice's Adventures in Wonderland", "The Starry Night". */
function titleCase(phrase: string): boolean {
  const words = phrase.trim().split(/\s+/)
  if (words.length < 2 || words.length > 12) return false
  // A clause or a list is no title ("Jeff Bezos, the CEO of Amazon"), nor a nickname ("Hank the Hot Dog Hero").
  if (phrase.includes(',') || words[1] === 'the') return false
  let inner = false
  for (let k = 0; k < words.length; k++) {
    const w = words[k].replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')
    if (w === '') return false
    if (/^[\p{Lu}\p{N}]/u.test(w)) continue
    if (!TITLE_FUNCTION.has(w) || k === 0 || k === words.length - 1) return false
    inner = true
  }
  return inner || /^(?:the|a|an)$/i.test(words[0])
}

/**
 * A name right after "from" that a capitalised character precedes, continued by a lower-case function word and
 * a capitalised word: "the Cheshire Cat from Alice in Wonderland", "the Queen of Hearts from Alice in
 * Wonderland" — the work the character is from ("a letter from Alice in Accounting" stays: "letter" is no
 * character).
 */
function characterWork(text: string, tokens: readonly Token[], from: number, to: number): boolean {
  if (from < 2) return false
  const prep = tokens[from - 1]
  if (prep.key !== 'from' || prep.cap || !tokens[from - 2].cap || tokens[from - 2].sentenceStart) return false
  if (!/^ $/.test(text.slice(prep.end, tokens[from].start))) return false
  return /^(?:['’]s)?(?: \p{Lu}[\p{L}'’-]*)* (?:in|of|and|on|under|through|at)(?: the)? \p{Lu}/u.test(
    text.slice(tokens[to].end, tokens[to].end + 80),
  )
}

/** Heads of ideas and things named after a person: "Heron's formula", "Halley's Comet", "Ponzi schemes". */
const EPONYM_HEADS = new Set([
  'formula',
  'formulas',
  'formulae',
  'theorem',
  'theorems',
  'conjecture',
  'hypothesis',
  'constant',
  'equation',
  'equations',
  'principle',
  'paradox',
  'lemma',
  'comet',
  'algorithm',
  'razor',
  'inequality',
  'distribution',
  'transform',
  'triangle',
  'wager',
  'sequence',
  'law',
  'laws',
  'scheme',
  'schemes',
  'syndrome',
  'disease',
  'effect',
])
/** Heads that may also be said of anyone ("Mary's disease"): only after a name that is no known first name. */
const EPONYM_PERSONAL = new Set(['scheme', 'schemes', 'syndrome', 'disease', 'effect'])

/**
 * A name before an eponym head, possessive or not: "Heron's formula", "Halley's Comet", "Murphy's law",
 * "Ponzi schemes", "Parkinson's disease". A lower-case "law" only before a full stop, "of", a verb of stating, …:
 * "Sarah's law firm" stays.
 */
function eponym(text: string, tokens: readonly Token[], to: number, flagsOf: Flags): boolean {
  let next = tokens[to + 1]
  if (!next || !/^(?:['’]s?)? $/.test(text.slice(tokens[to].end, next.start))) return false
  // One capitalised word may stand between: "Fermat's Last Theorem", "Newton's First Law".
  const then = tokens[to + 2]
  if (!EPONYM_HEADS.has(next.key) && next.cap && then?.cap && text.slice(next.end, then.start) === ' ')
    next = then
  if (!EPONYM_HEADS.has(next.key)) return false
  if (EPONYM_PERSONAL.has(next.key) && flagsOf(tokens[to]) & FIRST) return false
  // "Murphy's Law": a capitalised head names the law.
  if ((next.key === 'law' || next.key === 'laws') && !next.cap) {
    const after = text.slice(next.end, next.end + 12)
    return !/^ \p{Ll}/u.test(after) || /^ (?:of|states|says|is|was|and|in|for|to|that|which)\b/.test(after)
  }
  return true
}

/** Kinds of place before a name: "a planet named Xorbia", "the planet Zorba", "the village called Eldham". */
const PLACE_KINDS = new Set([
  'planet',
  'moon',
  // Not "star": "pop star Kesha" (held-out tweets, first reading of 0.6.4).
  'galaxy',
  'kingdom',
  'realm',
  'empire',
  'island',
  'isle',
  'continent',
  'city',
  'town',
  'village',
  'river',
  'lake',
  'mountain',
  'valley',
  'forest',
  'nation',
  'country',
  'province',
  'region',
])
/** Groups named right after their kind: "the team Denver", "echipa Denver" (Romanian), "the band Queen". */
const TEAM_KINDS = new Set(['team', 'club', 'band', 'echipa', 'équipe', 'equipo', 'squadra', 'команда'])
/**
 * Animals, machines and things given a name: "a lion cub named Simba", "a crow named Corvus", "a robot called
 * Zed" — no person ("a man named John", "a character named Kael" stay).
 */
const NAMED_KINDS = new Set([
  'dog',
  'cat',
  'puppy',
  'kitten',
  'horse',
  'pony',
  'parrot',
  'bird',
  'fish',
  'goldfish',
  'hamster',
  'rabbit',
  'bunny',
  'turtle',
  'snake',
  'crow',
  'owl',
  'lion',
  'cub',
  'tiger',
  'bear',
  'elephant',
  'dragon',
  'unicorn',
  'creature',
  'robot',
  'ship',
  'boat',
  'spaceship',
  'spacecraft',
  'company',
  'restaurant',
  'cafe',
  'café',
  'shop',
  'store',
  'hotel',
  'app',
  'game',
  'language',
])

/** Kinds of place before "of" and a name: "the kingdom of Eldoria" (not "land": "the land of John Smith"). */
const PLACE_OF = new Set([
  'planet',
  'kingdom',
  'realm',
  'empire',
  'island',
  'isle',
  'continent',
  'city',
  'town',
  'village',
  'nation',
  'province',
  'republic',
  'principality',
  'duchy',
])
/** Connectors after a head-first word of another language: "Teatro de Verano", "Palazzo della Signoria". */
const HEAD_CONNECTORS = new Set(['de', 'del', 'della', 'di', 'du', 'des', 'do', 'da', 'dos', 'das'])

/**
 * A name right after a kind of place or group, with "named"/"called" or "of" between or nothing ("a lion cub named
 * Simba" too: an animal or thing before "named"): "a planet named
 * Xorbia", "the kingdom of Eldoria", "the planet Zorba"; or after a head-first word of another language and its
 * connector: "el Teatro de Verano". Each word lower case and one space apart.
 */
function placeOfKind(text: string, tokens: readonly Token[], from: number, person: boolean): boolean {
  if (from < 1) return false
  const near = (a: Token, b: Token) => text.slice(a.end, b.start) === ' '
  const link = tokens[from - 1]
  if (!near(link, tokens[from]) || link.cap) return false
  // A team or band is an organisation ("the band Van Canto"), but no person.
  if (PLACE_KINDS.has(link.key) || (person && TEAM_KINDS.has(link.key))) return true
  if (from < 2 || !near(tokens[from - 2], link)) return false
  const kind = tokens[from - 2]
  if (
    (link.key === 'named' || link.key === 'called') &&
    !kind.cap &&
    (PLACE_KINDS.has(kind.key) || (person && (TEAM_KINDS.has(kind.key) || NAMED_KINDS.has(kind.key))))
  )
    return true
  if (link.key === 'of' && !kind.cap && PLACE_OF.has(kind.key)) return true
  if (HEAD_CONNECTORS.has(link.key) && THING_HEADS_FIRST.has(kind.key) && !ENGLISH_HEADS_FIRST.has(kind.key))
    return true
  return false
}
