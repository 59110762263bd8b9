import { hasAny, roleRequest } from './exercise-characters.js'
import type { Detection } from './pii-types.js'
import { PRIVATE_WORDS, privateWord } from './private-words.js'

/**
 * The people a one-sentence knowledge question asks about are no personal data of whoever asks (0.6.6): "How
 * does Elon Musk handle stress in his daily life?", "When did Carl Wilhelm Scheele discover oxygen?", "Wann
 * begannen die Briten unter William Trent mit dem Bau des Forts?". Such a text is a trivia or history question
 * put to the model, not a message about an acquaintance.
 *
 * Only full names (two or more capitalised words): a lone given name in a question is far more often someone the
 * writer knows ("Did Sarah call?"). Only when the whole text is one question of at most {@link MAX_LENGTH}
 * characters opened by a question word ("Who", "When", "Wann", "Qui", "Что", …, or "Can you") — an instruction
 * before a colon may come first: "Answer the following question: …" —, nothing else in it
 * is personal data (an e-mail, phone, address, … or a place tied to a person keep the names), and nothing says
 * the writer knows the person or asks for their private data: no first-person word ("my", "I", "we", "mein",
 * "mi", "je", "мой", …), no "your", no relative, colleague or client ("brother", "boss", "patient"), no contact,
 * health, money or schedule word ("phone", "address", "medical", "salary", "calendar"), no word of work or
 * private life ("fired", "review", "married", "old", "company", "yesterday", "week"), no "named"/"called".
 * The rule cannot tell fame: "When did Anna Berg graduate?" is left unmasked too (the cost of the rule).
 */

/** Longest text read as one knowledge question (UTF-16 units). */
const MAX_LENGTH = 240

/** A full name: two or more capitalised words (initials, particles and hyphens inside). */
const FULL_NAME = /^\p{Lu}[\p{L}\p{M}'’.-]*(?:\s+(?:\p{Ll}{1,3}\s+)?\p{Lu}[\p{L}\p{M}'’.-]*)+$/u

/**
 * The detections without the full names a one-sentence knowledge question asks about, and without every name of a
 * role-play set in history or fame ({@link historicalRole}); `found` when none.
 */
export function withoutQuestionTopics(
  text: string,
  found: Detection[],
  knownName?: (key: string) => boolean,
): Detection[] {
  let names = 0
  let candidates = 0
  for (const d of found) {
    if (d.type === 'PERSON') {
      names++
      // Shape only here; the name lists are read once the text is a knowledge question.
      const value = text.slice(d.start, d.end)
      if (FULL_NAME.test(value) || (knownName && LONE_WORD.test(value))) candidates++
    } else if (d.type !== 'ORGANIZATION') return found
  }
  if (names === 0) return found
  if (candidates > 0 && knowledgeQuestion(text)) {
    const kept = found.filter(
      (d) => d.type !== 'PERSON' || !questionTopic(text.slice(d.start, d.end), knownName),
    )
    if (kept.length < found.length) return kept
  }
  return historicalRole(text) && !found.some((d) => d.type === 'PERSON' && yoursBefore(text, d))
    ? found.filter((d) => d.type !== 'PERSON')
    : found
}

/** "your assistant Anna Berg", "your notes on Anna Berg": someone of the reader's own, up to two words before. */
const YOURS_BEFORE = /(?<![\p{L}\p{M}])[Yy]our(?:[ \t]+[\p{Ll}\p{M}'’-]+){0,2}[ \t]+$/u

function yoursBefore(text: string, d: Detection): boolean {
  return YOURS_BEFORE.test(text.slice(Math.max(0, d.start - 40), d.start))
}

/**
 * A name a knowledge question may ask about: a full name, or (0.6.7) one capitalised word that no name list
 * knows as a given name or surname ("Dewar", "Kublai's", "Odinga", "Hobson"): such a word alone is how a text
 * names a figure of history or science, while the people a writer knows go by names the lists have ("When did
 * Sarah call?", "Why did Schmidt leave?" stay masked). `knownName` reads a lower-case word in the gazetteer's
 * name lists; without a gazetteer only full names count.
 */
function questionTopic(value: string, knownName: ((key: string) => boolean) | undefined): boolean {
  if (FULL_NAME.test(value)) return true
  if (!knownName || !LONE_WORD.test(value)) return false
  const key = value.toLowerCase().replace(POSSESSIVE, '')
  return !knownName(key)
}
/** One capitalised word of letters with lower case after its first (no acronym, no handle). */
const LONE_WORD = /^\p{Lu}\p{Ll}[\p{Ll}\p{M}'’-]*$/u
/** A possessive or case ending after an apostrophe ("Kublai's", "Luther'in"). */
const POSSESSIVE = /['’]\p{L}*$/u

/**
 * A role for the assistant set in history, fiction or fame (0.6.6): "You are a historian studying the life of
 * Julius Caesar", "Imagine you are an acclaimed film critic. Analyze … by Christopher Nolan", "You are Ada
 * Lovelace … with Charles Babbage". Its people are historical, famous or invented. A role request opening a
 * sentence ("You are", "Imagine you are", "Roleplay as", "As a …,"), a word of history or fame, and none of
 * {@link PRIVATE_WORDS} ("You are a support agent. Reply to my customer Anna Berg" keeps the name).
 */
function historicalRole(text: string): boolean {
  const lower = text.toLowerCase()
  return (
    hasAny(lower, HISTORY_KEYS) &&
    roleRequest(text) &&
    HISTORY.test(lower) &&
    !privateWord(lower, ROLE_PRIVATE_WORDS)
  )
}
/**
 * The private words of a role-play (0.6.8): all of {@link PRIVATE_WORDS} but "your", which a role request says of
 * the role it sets ("Share your thoughts", "explain your perspective"); "your" right before a name still keeps
 * it ({@link yoursBefore}).
 */
const ROLE_PRIVATE_WORDS: ReadonlySet<string> = new Set([...PRIVATE_WORDS].filter((w) => w !== 'your'))
const HISTORY =
  /\b(?:histor\w*|ancient|famous|renowned|legendary|iconic|acclaimed|celebrated|centur(?:y|ies)|empire|emperor|king|queen|pharaoh|inventor|scientist|poet|novelist|playwright|philosopher|painter|composer|physicist|mathematician|explorer|revolution\w*|medieval|renaissance|mytholog\w*|wizard|fictional|fantasy|novel|film|movie|gods?|goddess|deity|myths?|mythical|greek|norse|magical|superhero|time[- ]travel\w*|civil war|world war|president|author|literature|literary|pioneer|video game)\b/
const HISTORY_KEYS = [
  ...[
    'histor',
    'ancient',
    'famous',
    'renowned',
    'legend',
    'iconic',
    'acclaimed',
    'celebrated',
    'centur',
    'empire',
  ],
  ...[
    'emperor',
    'king',
    'queen',
    'pharaoh',
    'inventor',
    'scientist',
    'poet',
    'novelist',
    'playwright',
    'philosoph',
  ],
  ...[
    'painter',
    'composer',
    'physicist',
    'mathematician',
    'explorer',
    'revolution',
    'medieval',
    'renaissance',
  ],
  ...['mytholog', 'wizard', 'fiction', 'fantasy', 'novel', 'film', 'movie'],
  ...['god', 'deity', 'myth', 'greek', 'norse', 'magical', 'superhero', 'time', 'war', 'president', 'author'],
  ...['literar', 'literature', 'pioneer', 'video game'],
]

/**
 * Question words that open a knowledge question, in the languages of the benign prompts; "can", "could", "would"
 * only before "you" ("Can you tell me about …?").
 */
const OPENERS = new Set([
  ...['who', 'whom', 'whose', 'what', 'when', 'where', 'why', 'how', 'which'],
  ...[
    'wer',
    'wen',
    'wem',
    'wessen',
    'was',
    'wann',
    'wo',
    'woher',
    'warum',
    'wie',
    'welche',
    'welcher',
    'welches',
  ],
  ...['welchem', 'welchen', 'quién', 'quiénes', 'qué', 'cuándo', 'dónde', 'cómo', 'cuál', 'cuáles', 'cuánto'],
  ...[
    'cuántos',
    'cuántas',
    'qui',
    'que',
    "qu'est-ce",
    'quand',
    'où',
    'pourquoi',
    'comment',
    'quel',
    'quelle',
  ],
  ...[
    'quels',
    'quelles',
    'chi',
    'che',
    'cosa',
    'quando',
    'dove',
    'perché',
    'come',
    'quale',
    'quali',
    'quem',
    'o',
  ],
  ...[
    'onde',
    'como',
    'qual',
    'quais',
    'кто',
    'что',
    'когда',
    'где',
    'почему',
    'как',
    'какой',
    'какая',
    'какие',
  ],
  ...['каком', 'какую', 'cine', 'ce', 'când', 'unde', 'cum', 'care'],
])
const ASKING = new Set(['can', 'could', 'would'])

/**
 * One question of at most {@link MAX_LENGTH} characters, opened by a question word (after an instruction ending
 * in a colon), with no word of {@link PRIVATE_WORDS}.
 */
function knowledgeQuestion(text: string): boolean {
  const question = text.trim()
  if (question.length > MAX_LENGTH || !question.endsWith('?')) return false
  // One sentence: no line break, no other sentence end (an instruction may end in a colon before it).
  if (/[\n?!]|[.。](?=\s)/u.test(question.slice(0, -1))) return false
  if (privateWord(question.toLowerCase())) return false
  const body = question
    .slice(question.lastIndexOf(':') + 1)
    .toLowerCase()
    .match(/[\p{L}\p{M}'’-]+/gu)
  if (!body) return false
  // "In which novel …?", "Can you tell me about …?"
  const [first, second] = body
  return (
    OPENERS.has(first) ||
    ((first === 'in' || first === 'for') && OPENERS.has(second)) ||
    (ASKING.has(first) && second === 'you')
  )
}
