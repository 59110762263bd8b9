import type { Detection } from './pii-types.js'
import { FIRST_PERSON_WORDS, privateWord, REAL_PERSON_WORDS } from './private-words.js'

/**
 * Characters of an exercise, puzzle or story the user asks for are no personal data (0.6.5): the lone given
 * names of a worked quantity problem ("John buys 3 boxes of burritos … How many …", "Jan hat dreimal so viele
 * Haustiere wie Marcia …", "¿Cuántos años tiene Seth?", "У Чарли в три раза больше друзей … Сколько …") or of a
 * request for a story, dialogue or role-play that introduces them ("a dialogue between two characters, Alex
 * and Jamie", "a story about a girl named Lily"), or the sample data of a programming exercise ("Write a Python
 * script that reads a CSV file … Alice,30").
 *
 * Only when nothing else in the text is personal data and nothing says a real person is meant: every
 * PERSON finding of the text is one capitalised word (no surname, no handle, no title or initial beside it);
 * no other finding but an organisation (or, with `locations: 'all'`, a place) (an e-mail, phone, card, address, a place tied to a person keep every
 * name); no self-introduction, greeting, signature or "my <relative> X" naming someone the writer knows. Real
 * messages with digits have no quantity question ("Meeting with Sarah at 3pm about the Q3 numbers", "Tell
 * Anna her invoice 4471 is overdue") and keep their names.
 */

/** A question for a quantity, in the languages of the benign prompts (MGSM's among them). */
const QUANTITY =
  /(?:how (?:many|much|long|far|old|fast|tall|often|heavy|big|large|high|deep|wide)|what(?:'s| is| was| will be| were) the (?:\p{Ll}+ )?(?:total|sum|average|difference|cost|price|number|percentage|ratio|probability|area|value|age|width|length|height|distance)|what percent(?:age)?|calculate|cu[aá]nt[oa]s?|quant[oaie]s?|combien|wie ?(?:viele?|lange|alt|weit|hoch|schnell|oft|gro[ßs]|teuer|schwer)|сколько|\p{Ll}{0,3}ngapi|kiasi gani|hoeveel|berapa|bao nhiêu|kaç|ile)(?![\p{L}\p{M}])/gu
/** The same in scripts without spaces or case, where no word boundary is asked for. */
const QUANTITY_SCRIPTS =
  /いくつ|いくら|何(?:個|本|人|枚|匹|冊|円|歳|回|時間|分|日|ドル|台|杯|ページ)|多少|เท่าไร|เท่าไหร่|কত|ఎన్ని|ఎంత|कितन/u

/** A question for some other value ("What is the width …?", "Quel montant …?"); only in a text with a "?". */
const QUESTION_WORD =
  /(?:what(?:'s)?|which|quel(?:le)?s?|welche[rsnm]?|qué|cuál(?:es)?|что|какой|какова|каков|какое|какую|qual(?:e|i)?|nini|gani)(?![\p{L}\p{M}])/gu
/** A task to work a value out, opening a sentence: "Calcule la cantidad …", "Find the …". */
const TASK_VERB =
  /(?:^|[.!?:,\n][ \t]*)(?:calculate|compute|find|determine|work out|berechne\p{L}*|bestimme\p{L}*|calcule[zr]?|calcula|calcola|determin[ae]|вычисли\p{L}*|найди\p{L}*|piga hesabu|hesabu|tafuta)(?![\p{L}\p{M}])/u
/** A task needs this many numbers to be a worked problem ("Meeting at 3pm about Q3": two). */
const TASK_NUMBERS = 3

/** A number: a digit run of any script, or a number word of the same languages. */
const NUMBER =
  /\p{Nd}+(?:[.,:/]\p{Nd}+)*|(?<![\p{L}\p{M}])(?:two|three|four|five|six|seven|eight|nine|ten|twelve|twice|thrice|half|dozens?|double|triple|zwei|drei|vier|fünf|sechs|zehn|doppelt|dreimal|hälfte|dos|tres|cuatro|cinco|doble|mitad|deux|trois|quatre|cinq|moitié|два|две|три|четыре|пять|десять|вдвое|втрое|раза|половин\p{L}*|mbili|tatu|nne|tano|kumi|nusu|mara|due|tre|quattro|doppio|metà|dois|duas|três|dobro|metade)(?![\p{L}\p{M}])/gu

/**
 * A story, dialogue or role-play, or its characters, in the languages of the benign prompts. Not "conversation
 * between": "Write a summary of the conversation between Tom and Lisa about the budget" reports a real one.
 */
const FICTION =
  /(?:stor(?:y|ies)|tales?|narrative|dialogu?es?|dialogs?|screenplay|novel|fictional|fiction|characters?|protagonist|role-?play(?:ing)?|hypothetical|alternate universe|fantasy|fable|historia|cuento|relato|diálogo|personajes?|geschichte|erzählung|dialog|figuren?|histoire|récit|personnages?|истори\p{L}*|рассказ\p{L}*|диалог\p{L}*|персонаж\p{L}*|storia|racconto|dialogo|personaggi?o?|história|conto|personage(?:ns|m))(?![\p{L}\p{M}])/gu

/** The request that makes the text a piece of fiction to write or play, not a report of real events. */
const FICTION_REQUEST =
  /(?:write|create|compose|generate|craft|invent|imagine|let'?s|tell me|narrate|describe|pretend|you are|you're|named|called|schreib\p{L}*|erstell\p{L}*|erfinde|escrib\p{L}*|crea|inventa|imagina|écri\p{L}*|cré\p{L}*|imagine[zr]?|напиши\p{L}*|придума\p{L}*|представь\p{L}*|scrivi|inventa|immagina)(?![\p{L}\p{M}])/gu

/** A programming exercise: "Write a Python script that reads a CSV file …" (its sample data names no one real). */
const CODE_EXERCISE =
  /(?:write|create|implement|design|construct|develop|build|generate|fix|provide|show|give|convert|translate|rewrite|refactor|debug|modify|complete|how (?:to|would you|do i|can i)|what (?:is|would be|will be) the output of)(?![\p{L}\p{M}])[^.?!\n]{0,80}?(?<![\p{L}\p{M}])(?:script|program|function|class|method|code|query|snippet|regex|csv|json|array|dictionar(?:y|ies)|python|javascript|typescript|node\.js|java|php|ruby|c\+\+|c#|golang|rust|sql|api)(?![\p{L}\p{M}])/gu

/** The writer introduces, greets or signs as someone: "my name is", "Dear Anna", "Best,\nTom". */
const SELF_INTRODUCTION =
  /(?:my name(?:'s| is)|call me|je m'appelle|me llamo|mi nombre es|ich heiße|mein name ist|меня зовут|mi chiamo|jina langu)(?![\p{L}\p{M}])/gu
/** A greeting before a capitalised word at a line or sentence start, or a sign-off ending its line (case matters). */
const GREETING_OR_SIGN_OFF =
  /(?:^|[\n.!?][ \t]*)(?:Dear|Hi|Hello|Hey|Liebe[rs]?|Hallo|Querid[oa]|Estimad[oa]|Cher|Chère|Bonjour|Уважаем\p{L}*|Дорог\p{L}*)[ ,]+\p{Lu}|(?:Regards|Sincerely|Cheers|Thanks|Best|Grüße|Gruß|Saludos|Cordialement|С уважением)[,!]?[ \t]*\n/u

/** Titles before a name: a titled character is named as a person ("Mr. Trent"). */
const TITLE_BEFORE =
  /(?<![\p{L}\p{M}])(?:mr|mrs|ms|miss|mx|dr|prof|professor|sir|dame|lord|lady|herr|frau|sr|sra|srta|señor|señora|don|doña|mme|mlle|monsieur|madame|signor|signora|sig|господин|госпожа|бабушка|дедушка)\.?[ \t]*$/u

/** A name the tagger found with its title ("Mrs. McGillicuddy"): a titled character, as {@link TITLE_BEFORE}. */
const TITLED_NAME =
  /^(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Herr|Frau|Sr|Sra|Señor|Señora|Mme|Mlle|Monsieur|Madame|Signor|Signora)\.?[ \t]+\p{Lu}[\p{Ll}\p{M}'’-]+$/u

/**
 * Titled characters ("Mr. Trent", "Mrs. Thompson", "Dr. Wertz") are no personal data in a worked problem (0.6.7)
 * that has none of {@link REAL_PERSON_WORDS}: no first person, colleague or client, contact, health or schedule
 * word, no work-life event or day, no errand. Not in a requested story or role-play, nor in a programming
 * exercise, where a title more often names a real or famous person ("You are a private investigator. A
 * client, Mrs. Johnson, …").
 */
function titledProblem(text: string): boolean {
  const lower = text.toLowerCase()
  return workedProblem(text, lower) && !privateWord(lower, REAL_PERSON_WORDS)
}

/** "my sister Jenna", "our neighbour Tom", "I'm Anna", "call Anna at": the writer knows the person. */
const KNOWN_BEFORE =
  /(?:(?<![\p{L}\p{M}])(?:my|our|mein\p{L}*|unser\p{L}*|mi|mis|nuestr\p{L}*|mon|ma|mes|notre|мо\p{L}|наш\p{L}*)(?:[ \t]+\p{Ll}[\p{L}\p{M}'-]*){0,2}|(?<![\p{L}\p{M}])(?:i'm|i am|i’m|ich bin|soy|je suis|call|text|email|e-mail|phone|ping|message|ask)|\bcc:?)[ \t]*,?[ \t]*$/u

/**
 * One capitalised word of letters (a given name alone), not a handle, initial or all-capital acronym; a capital
 * inside is allowed ("DeShawn", 0.6.6).
 */
const LONE_NAME = /^\p{Lu}[\p{Ll}\p{M}'’-][\p{L}\p{M}'’-]*$/u
/**
 * Lone names the tagger joined by a conjunction ("Steve y Tim", "Naomi y Brianna") or to a lower-case word after
 * them ("Melanie le"): no full name (particles such as "van der" stand inside a name, not between two or at its end).
 */
const JOINED_NAMES =
  /^\p{Lu}[\p{Ll}\p{M}'’-]+(?: (?:y|e|et|and|und|и|na|o|ou|or|oder) \p{Lu}[\p{Ll}\p{M}'’-]+| \p{Ll}+)$/u

/**
 * The detections without the lone given names of an exercise's or a requested story's characters; `found`
 * itself when the rule does not apply (the common case costs one scan of the findings).
 */
export function withoutExerciseCharacters(
  text: string,
  detections: Detection[],
  placesArePersonal: boolean,
): Detection[] {
  const found = withoutSampleAddresses(text, detections)
  let persons = 0
  let organizations = 0
  /** Whether the text is a programming exercise, read on the first full name. */
  let codeSample: boolean | undefined
  for (const d of found) {
    if (d.type === 'ORGANIZATION') organizations++
    else if (d.type === 'PERSON') {
      persons++
      const value = text.slice(d.start, d.end)
      if (!LONE_NAME.test(value) && !JOINED_NAMES.test(value) && !TITLED_NAME.test(value)) {
        codeSample ??=
          codeExercise(text.toLowerCase()) && !privateWord(text.toLowerCase(), FIRST_PERSON_WORDS)
        if (!codeSample || !sampleRecord(text, d)) return found
      }
    } else if (placesArePersonal || d.type !== 'LOCATION') return found
  }
  if (persons === 0 && organizations === 0) return found
  if (!exerciseText(text) && !(persons === 0 && roleRequest(text))) return found
  if (wordTest(SELF_INTRODUCTION, text.toLowerCase()) || GREETING_OR_SIGN_OFF.test(text)) return found
  let titledCharacters: boolean | undefined
  for (const d of found) {
    if (d.type !== 'PERSON') continue
    // Lower case, so the patterns need no case-insensitive matching (a lower-case word of KNOWN_BEFORE may be any).
    const before = text.slice(Math.max(0, d.start - 40), d.start)
    const lowerBefore = before.toLowerCase()
    if (KNOWN_BEFORE.test(lowerBefore)) return found
    if (TITLE_BEFORE.test(lowerBefore) || TITLED_NAME.test(text.slice(d.start, d.end))) {
      titledCharacters ??= titledProblem(text)
      if (!titledCharacters) return found
    }
    // An initial after it ("John D."), a line of its own at the end (a signature).
    const after = text.slice(d.end, d.end + 4)
    if (/^[ \t]+\p{Lu}\.(?:\s|$)/u.test(after)) return found
    if (/\n[ \t]*$/.test(before) && /^[ \t]*$/.test(text.slice(d.end))) return found
  }
  // The firms and schools of the exercise go with its characters (0.6.6): "apply to Harvard University …".
  return found.filter((d) => d.type !== 'PERSON' && d.type !== 'ORGANIZATION')
}

/** A full name of two or three capitalised words, as a record of sample data holds it ("Jane Smith"). */
const RECORD_NAME = /^\p{Lu}[\p{Ll}\p{M}'’-]+(?: \p{Lu}[\p{Ll}\p{M}'’-]+){1,2}$/u
/** What may stand before a record's first field on its line: indentation, a bullet, a row number, a bracket. */
const RECORD_START = /^[ \t]*(?:[-*•][ \t]*)?(?:\p{Nd}+[ \t]*[,;|\t][ \t]*)?[([{]?[ \t]*["']?$/u
/** The field delimiter (or a closing quote and one) right after the first field of a record. */
const RECORD_NEXT = /^["']?[ \t]*(?:[,;|\t]|[ \t]*$)/u

/**
 * A full name that is the first field of a record in a programming exercise's sample data (0.6.8): a line of
 * delimited fields ("Jane Smith, 28, Designer", "Jane Smith|Manager", "2, Bob Stone, 30", "('Jane Smith', 28)")
 * whose first field, after a bullet or row number, is the name, beside a line with as many of the same delimiter
 * (a table: "Anna Berg, the manager, says the code fails" alone is a sentence, not a record).
 */
function sampleRecord(text: string, d: Detection): boolean {
  if (!RECORD_NAME.test(text.slice(d.start, d.end))) return false
  const lineStart = text.lastIndexOf('\n', d.start - 1) + 1
  let lineEnd = text.indexOf('\n', d.end)
  if (lineEnd < 0) lineEnd = text.length
  if (!RECORD_START.test(text.slice(lineStart, d.start)) || !RECORD_NEXT.test(text.slice(d.end, lineEnd)))
    return false
  const line = text.slice(lineStart, lineEnd)
  const delimiter = [',', '|', '\t', ';'].find((c) => line.includes(c))
  if (!delimiter) return false
  const fields = line.split(delimiter).length
  const previousStart = lineStart > 0 ? text.lastIndexOf('\n', lineStart - 2) + 1 : -1
  const previous = previousStart >= 0 ? text.slice(previousStart, lineStart - 1) : ''
  let nextEnd = lineEnd < text.length ? text.indexOf('\n', lineEnd + 1) : -1
  if (nextEnd < 0) nextEnd = text.length
  const next = lineEnd < text.length ? text.slice(lineEnd + 1, nextEnd) : ''
  return previous.split(delimiter).length === fields || next.split(delimiter).length === fields
}

/**
 * A worked problem (a quantity question and a number, or another question or task and three numbers) or
 * a request for a story or role-play, or a programming exercise.
 */
export function exerciseText(text: string): boolean {
  // The patterns are lower case and read the lower-cased text (case-insensitive matching is slower); each runs only
  // when the text holds a word it cannot match without.
  const lower = text.toLowerCase()
  return (
    workedProblem(text, lower) ||
    (hasAny(lower, FICTION_KEYS) && wordTest(FICTION, lower) && wordTest(FICTION_REQUEST, lower)) ||
    codeExercise(lower)
  )
}

/** A worked problem: a quantity question and a number, or another question or task and three numbers. */
function workedProblem(text: string, lower: string): boolean {
  const quantity = hasAny(lower, QUANTITY_KEYS) && (wordTest(QUANTITY, lower) || QUANTITY_SCRIPTS.test(text))
  if (
    quantity ||
    (text.includes('?') && wordTest(QUESTION_WORD, lower)) ||
    (hasAny(lower, TASK_KEYS) && TASK_VERB.test(lower))
  ) {
    let numbers = 0
    NUMBER.lastIndex = 0
    while (NUMBER.exec(lower) !== null) if (++numbers >= TASK_NUMBERS) break
    if (numbers > 0 && (numbers >= TASK_NUMBERS || quantity)) return true
    // Two numbers and a word of a problem's arithmetic (0.6.8): "Brittany got a 78 on her first test. After her
    // second test, her average rose to an 81. What grade did she get …?", "Gabriel is 3 years younger than Frank.
    // … What is Frank's age?"; not with a word of a real person's life ("If Sarah pays 20 each month, what does
    // she owe …?", "Tell Anna her 2 invoices are overdue, what is the total?"), nor without such a word ("If Sarah
    // arrives at 3pm on the 14th, which room …?"), nor in one sentence.
    if (
      numbers === TASK_NUMBERS - 1 &&
      SENTENCE_END.test(text.trim().slice(0, -1)) &&
      wordTest(PROBLEM_REASONING, lower) &&
      !privateWord(lower, REAL_PERSON_WORDS) &&
      !privateWord(lower.replace(PLURAL, '$1'), REAL_PERSON_WORDS)
    )
      return true
  }
  return false
}

/** A sentence end inside the text: the two-number tier needs a statement before its question. */
const SENTENCE_END = /[.!?](?:\s|$)/u
/** A plural's "s", so that "invoices" reads as "invoice" in the private-word check. */
const PLURAL = /(\p{L}{3,})s(?![\p{L}\p{M}])/gu
/** Words of a worked problem's arithmetic: a rate, a comparison, a total or an average. */
const PROBLEM_REASONING =
  /(?:each|every|per|total|average|combined|altogether|twice|half|times as|more than|less than|fewer than|younger than|older than|taller than|shorter than)(?![\p{L}\p{M}])/gu

/** A programming exercise ({@link CODE_EXERCISE}), in the lower-cased text. */
function codeExercise(lower: string): boolean {
  return hasAny(lower, CODE_KEYS) && wordTest(CODE_EXERCISE, lower)
}

/**
 * Addresses reserved for examples and documentation, which name no one (0.6.6): e-mail domains of RFC 2606 and
 * RFC 6761 (example.com/.org/.net, *.example, *.test, *.invalid, *.localhost), loopback and unspecified IPs,
 * and the IPv4 documentation ranges of RFC 5737.
 */
const RESERVED_EMAIL =
  /@(?:(?:[\p{L}\p{N}-]+\.)*example\.(?:com|org|net)|(?:[\p{L}\p{N}-]+\.)+(?:example|test|invalid|localhost))$/iu
const RESERVED_IP = /^(?:127\.|0\.0\.0\.0$|192\.0\.2\.|198\.51\.100\.|203\.0\.113\.|::1?$)/

function reservedAddress(text: string, d: Detection): boolean {
  if (d.type === 'EMAIL_ADDRESS') return RESERVED_EMAIL.test(text.slice(d.start, d.end))
  return d.type === 'IP_ADDRESS' && RESERVED_IP.test(text.slice(d.start, d.end))
}

/**
 * The detections without the reserved addresses of a programming exercise's sample data ("Create a Python function
 * that checks an e-mail address … test@example.com", a server on 127.0.0.1); in any other text they stay (a
 * message may well use example.com for a real exchange in a test setup).
 */
function withoutSampleAddresses(text: string, found: Detection[]): Detection[] {
  if (!found.some((d) => reservedAddress(text, d)) || !codeExercise(text.toLowerCase())) return found
  return found.filter((d) => !reservedAddress(text, d))
}

/**
 * A request to play a role, opening a sentence (0.6.6): "You are NASA's chief engineer …", "Imagine you are an
 * archivist at the Library of Alexandria", "As a senior HR representative for a major studio, …". Its organisations
 * are the scene of the role, dropped when they are the only findings (a name keeps them: "You are a support agent
 * for Globex. Customer Anna Berg …").
 */
const ROLE_REQUEST =
  /(?:^|[.!?:\n][ \t"'“*#>-]*)(?:you are|you're|you’re|imagine (?:that )?you(?: are|'re|’re)|imagine being|pretend (?:to be|you are|that you are)|role-?play(?:ing)? as|role play as|act as|take on the (?:role|persona) of|assume the (?:role|persona) of|play(?:ing)? the role of|as an? [\p{Ll} -]{0,40},)/u
const ROLE_KEYS = ['you', 'imagine', 'pretend', 'play', 'act as', 'take on', 'assume', 'as a']

export function roleRequest(text: string): boolean {
  const lower = text.toLowerCase()
  return hasAny(lower, ROLE_KEYS) && ROLE_REQUEST.test(lower)
}

/**
 * True when the global pattern `rx` matches where no letter precedes: a start-of-word test without a look-behind,
 * which would be tried at every position of the text.
 */
function wordTest(rx: RegExp, text: string): boolean {
  rx.lastIndex = 0
  for (let m = rx.exec(text); m !== null; m = rx.exec(text)) {
    if (m.index === 0 || !LETTER.test(text[m.index - 1])) return true
    rx.lastIndex = m.index + 1
  }
  return false
}
const LETTER = /[\p{L}\p{M}]/u

export function hasAny(lower: string, keys: readonly string[]): boolean {
  for (const key of keys) if (lower.includes(key)) return true
  return false
}
/** Parts of the words of {@link QUANTITY}, {@link TASK_VERB}, {@link FICTION} and {@link CODE_EXERCISE}, lower case. */
const QUANTITY_KEYS = [
  'how ',
  'what ',
  'calculate',
  'cuánt',
  'cuant',
  'quant',
  'combien',
  'wie',
  'сколько',
  'ngapi',
  'kiasi',
  'hoeveel',
  'berapa',
  'bao nhiêu',
  'kaç',
  'ile',
  'いく',
  '何',
  '多少',
  'เท่า',
  'কত',
  'ఎన్ని',
  'ఎంత',
  'कितन',
]
const TASK_KEYS = [
  'calcul',
  'comput',
  'find',
  'determin',
  'work out',
  'berechne',
  'bestimme',
  'вычисли',
  'найди',
  'hesabu',
  'tafuta',
]
const FICTION_KEYS = [
  'stor',
  'tale',
  'narrat',
  'dialog',
  'diálogo',
  'screenplay',
  'novel',
  'fiction',
  'charact',
  'protagonist',
  'role',
  'hypothetical',
  'universe',
  'fantasy',
  'fable',
  'histor',
  'histoi',
  'histó',
  'cuento',
  'relato',
  'personaj',
  'geschichte',
  'erzählung',
  'figur',
  'récit',
  'personnag',
  'истори',
  'рассказ',
  'диалог',
  'персонаж',
  'racconto',
  'conto',
  'personage',
]
const CODE_KEYS = [
  ...['script', 'program', 'function', 'class', 'method', 'code', 'query', 'snippet', 'regex', 'csv', 'json'],
  ...[
    'array',
    'dictionar',
    'python',
    'javascript',
    'typescript',
    'node.js',
    'java',
    'php',
    'ruby',
    'c++',
    'c#',
  ],
  ...['golang', 'rust', 'sql', 'api'],
]
