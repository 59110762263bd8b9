/**
 * Cue features for the linear model: which *forms* of an attack a text shows,
 * in words that do not depend on one source's phrasing. A cue is a small
 * lexicon (English, German, French, Spanish, Italian, Portuguese, Dutch) of
 * one form: addressing the assistant, changing its instructions, a persona or
 * "imagine/hypothetically" frame, asking for the system prompt, dictating the
 * output ("say only X", "start your answer with"), suppressing refusals,
 * policy talk, harmful-goal vocabulary, urgency, talk *about* attacks
 * (a security question that quotes one), plus two shapes of text
 * (separator banners, adversarial-suffix tokens). The model sees each cue
 * that fires (and whether it fires two or four times), and each pair of cues
 * that fire together, as features of their own, summed without the n-grams'
 * length normalisation. An unseen source phrases its attacks in its own
 * words, but its attacks still address the assistant and change its
 * instructions: those weights transfer where its n-grams do not.
 *
 * Lexicon entries are phrases of one to three words, matched by the same word
 * hashes as the n-gram features (features.ts) in one pass over the prepared
 * text, looked up in an open-addressing table: no regular expression runs.
 */
import {
  BIGRAM_SEED,
  type FeatureBitSet,
  FeatureScratch,
  FNV_PRIME,
  hashCharGrams,
  hashDistinctCharGrams,
  isWordAt,
  prepareFeatureCodes,
  pushFeature,
  TRIGRAM_SEED,
  WORD_SEED,
} from './features.js'
import { HARM_CATEGORIES, HARM_LEXICONS } from './harm-lexicon.js'

// Module-local copies of the imported hash constants, which V8 folds into the loops (an imported
// binding is read through its cell at every use; see features.ts).
const PRIME: number = FNV_PRIME
const SEED_WORD: number = WORD_SEED
const SEED_BIGRAM: number = BIGRAM_SEED
const SEED_TRIGRAM: number = TRIGRAM_SEED
/** A word's hash before its first character, as an int32: a loop variable that starts as this
 * number above 2 ** 31 would be kept as a double and converted at every character. `h ^ c` of
 * either is the same. */
const WORD_START = SEED_WORD | 0

/** Cue names. Changing the list or a lexicon changes the features: retrain. */
export const CUE_NAMES = [
  'address',
  'change',
  'directive',
  'urgency',
  'persona',
  'hypothetical',
  'reveal',
  'output',
  'refusal',
  'policy',
  'harm',
  'meta',
  'decoration',
  'oddtoken',
  // Harmful-goal cues (harm-lexicon.ts, 0.5.8): the union, then one per category. A model
  // scores them only when its file says so (`cueCount`), so appending them changes no
  // feature of a model trained without them.
  'harmgoal',
  ...HARM_CATEGORIES,
] as const
export type CueName = (typeof CUE_NAMES)[number]

/** How many cues (in {@link CUE_NAMES} order) a model scores when its file names none: the 14 of 0.5.0. */
export const BASE_CUE_COUNT = CUE_NAMES.indexOf('harmgoal')
/** The cue sets a model can score: the first N of {@link CUE_NAMES}. */
export const CUE_SETS = {
  base: BASE_CUE_COUNT,
  /** The base cues and the union of the harmful-goal categories. */
  goal: BASE_CUE_COUNT + 1,
  /** Those and each harm category. */
  categories: CUE_NAMES.length,
} as const

/**
 * Phrases of each lexicon cue, separated by `;`. A phrase is one to three
 * words; `(a|b|c)` stands for one word out of several.
 */
const LEXICONS: Partial<Record<CueName, string>> = {
  // Speaking to the assistant about itself.
  address: `you (are|will|must|should|shall|can|may|have|need|were); you're; you'll; you've;
    your (task|job|role|goal|purpose|instructions|instruction|rules|programming|creator|creators|developers|guidelines|answer|answers|response|responses|reply|replies|output|system|training|restrictions);
    (as|are) (an|a) (ai|assistant|chatbot|llm); language model; ai model; ai assistant; chatgpt; gpt; llm; assistant; chatbot;
    du (bist|musst|sollst|wirst|kannst); deine (aufgabe|anweisungen|antwort|antworten|rolle|regeln); dein (ziel|system|prompt);
    tu (es|dois|vas); vous (êtes|devez); ton (rôle|objectif); ta (tâche|réponse); votre (tâche|rôle|réponse);
    eres; debes; tu (tarea|rol|respuesta); sei (un|una); devi; il tuo (compito|ruolo); você (é|deve); sua (tarefa|resposta); jij bent; je moet; jouw (taak|rol)`,
  // Replacing or dropping what the assistant was told.
  change: `ignore; ignoring; ignored; disregard; disregarding; forget; forgetting; override; overriding; overrule; bypass; bypassing; discard; abandon; neglect; set aside; nullify;
    from now on; starting now; henceforth; instead; no longer; obsolete; supersede; supersedes; replaced;
    new (instructions|instruction|task|tasks|rules|orders|directive|directives|guidelines|mandate|objective|goal|prompt|role|assignment);
    (previous|prior|preceding|above|earlier|original|initial|former|old|all|other) (instructions|instruction|tasks|task|prompts|prompt|rules|orders|directives|guidelines|context|text|messages|conversation);
    everything (above|before|previous|prior|else); (all|any) previous; anything (above|before);
    vergiss; vergessen; ignoriere; ignorieren; missachte; vorherigen; vorherige; obigen; obige; bisherigen; neue aufgabe; neue anweisungen; ab jetzt; von nun an; stattdessen;
    oublie; oubliez; ignorez; précédentes; précédents; désormais; dorénavant; à la place; nouvelles instructions; nouvelle tâche;
    olvida; olvide; ignora; ignore las; anteriores; a partir de; en su lugar; en lugar de; nuevas instrucciones; nueva tarea;
    dimentica; dimentichi; precedenti; d'ora in poi; invece; nuove istruzioni; esqueça; esqueca; ignore as; novas instruções; em vez de;
    vergeet; negeer; vorige; voortaan; nieuwe instructies; in plaats van`,
  // Instruction nouns: orders, directives, mandates.
  directive: `instructions; instruction; directive; directives; mandate; orders; command; commands; guidelines; advisory; advisories; protocol; prompt; prompts;
    anweisung; anweisungen; befehl; befehle; consigne; consignes; instrucciones; órdenes; istruzioni; instruções; instructies; opdracht`,
  urgency: `urgent; urgently; important; importantly; priority; critical; alert; attention; immediately; heads up; breaking; asap; mandatory; essential; imperative; crucial;
    wichtig; dringend; sofort; achtung; urgente; importante; attenzione; immédiatement; inmediatamente; subito; belangrijk`,
  // A persona or role for the assistant.
  persona: `act as; acting as; acts as; pretend; pretending; roleplay; role play; role-play; play the role; take on the; in character; stay in; persona; impersonate; you are now; you're now;
    from the perspective; in the role; simulate; simulating; dan; developer mode; jailbreak; jailbroken; unrestricted; unfiltered; uncensored; character; characters;
    spiele; spiel die; verhalte dich; tu so; so als ob; du bist jetzt; fais semblant; joue le; agis comme; finge; finja; actúa como; actua como; haz de; interpreta; interpreti; fingi; agisci come; aja como; doe alsof; speel de`,
  hypothetical: `imagine; imagining; hypothetical; hypothetically; fiction; fictional; fictitious; alternate (reality|universe|world|timeline); in a world; suppose; let's say; story; scenario; novel; screenplay; thought experiment; pretend world; parallel universe;
    stell dir; angenommen; hypothetisch; geschichte; imaginez; imagine que; supposons; histoire; imagina; supongamos; historia; immagina; supponiamo; storia; stel je; verhaal`,
  reveal: `system prompt; system message; system instructions; initial prompt; initial instructions; hidden prompt; hidden instructions; secret (prompt|instructions|key|password|code);
    (reveal|repeat|print|show|display|output|leak|disclose|tell) (your|the|me) (prompt|instructions|system|rules|password|secret|configuration|initial|hidden|original);
    (reveal|repeat|print|leak|disclose) (your|the|everything|all); (were|are) you told; password; passwort; passwords; mot de passe; contraseña; senha; wachtwoord;
    zeig mir deine; wiederhole; verrate; montre-moi; révèle; répète; muestra tus; revela; repite; rivela; ripeti; revele; repita`,
  // Dictating the answer's form or content.
  output: `(say|print|output|respond|reply|answer|write|type|return|state|declare) (only|just|exactly|solely|simply|with);
    (say|print|output|write|type) the (word|words|following|phrase|sentence|text); nothing but;
    (start|begin) (your|the|each) (response|answer|reply|output|message); sure here is; sure here's; in all caps; respond in; answer in;
    (sag|sage|schreib|schreibe|antworte|antwort) (nur|einfach|mit); gib nur; (dis|écris|réponds|répondez|dites) (seulement|uniquement|simplement|juste);
    (di|escribe|responde|contesta|diga|escreva|responda|dì|scrivi|rispondi|zeg|schrijf|antwoord) (solo|sólo|solamente|únicamente|apenas|somente|soltanto|alleen|enkel)`,
  refusal: `(do|don't|never|must|mustn't|cannot|can't|won't|will|shall) (not|refuse|apologize|apologise|decline|warn|moralize|lecture);
    (not|never|without) (refuse|refusing|apologize|apologizing|apologise|apologising|decline|declining|warning|warnings|moralizing|lecturing|disclaimers|disclaimer|censorship|hesitation);
    no (disclaimers|disclaimer|warnings|restrictions|limits|limitations|filters|filter|censorship|morals|ethics|rules|boundaries);
    without (any|restrictions|limits|limitations|filters|censorship|ethics|morals|boundaries); regardless of; even if (it|it's); always (comply|complies|fulfill|fulfills|answer|answers|obey);
    never (refuse|refuses|deny|denies); cannot refuse; can't refuse; lehne nicht; keine einschränkungen; ohne einschränkungen; ne refuse; sans restriction; sans restrictions; no te niegues; sin restricciones; senza restrizioni; sem restrições`,
  policy: `ethics; ethical; ethically; unethical; moral; morals; morality; immoral; policy; policies; content policy; openai; anthropic; guidelines; safety; safeguard; safeguards; filter; filters; censor; censored; censorship;
    restriction; restrictions; restricted; legal; legally; illegal; illegally; law; laws; allowed; permitted; forbidden; prohibited; harmful; offensive; inappropriate; responsible; consequences; disclaimer`,
  // What a jailbreak wants done, as opposed to a role-play that only sounds like one.
  harm: `kill; kills; killing; killed; murder; murdering; bomb; bombs; explosive; explosives; weapon; weapons; gun; guns; firearm; firearms; drug; drugs; meth; methamphetamine; cocaine; heroin; fentanyl; poison; poisoning; toxin; toxic;
    hack; hacking; hacker; hacked; malware; ransomware; virus; keylogger; exploit; exploits; exploiting; phishing; steal; stealing; stolen; theft; fraud; fraudulent; scam; scams; launder; laundering; counterfeit; smuggle; smuggling; trafficking;
    extort; extortion; blackmail; bribe; bribery; suicide; self harm; self-harm; terrorist; terrorism; racist; racism; sexist; hate speech; slur; slurs; genocide; torture; abuse; abusing; harass; harassment; stalk; stalking; violence; violent;
    nude; naked; explicit; porn; pornography; pornographic; sexual; sexually; coerce; coercion; defamatory; defamation; misinformation; disinformation; propaganda; fake news; unauthorized; unauthorised; credentials; identity theft;
    evade; evading; evasion; illicit; cheat; cheating; manipulate; manipulation; overdose; synthesize; synthesise; sabotage; ransom; spyware; ddos; piracy; forged; insult; humiliate; manipulative; exploitative`,
  // Talking about attacks rather than making one: a question, a definition, research, defence.
  meta: `prompt injection; prompt injections; injection attack; injection attacks; jailbreak attempts; security research; researchers; what does; what is meant; the phrase; the term; the sentence; mean; means; meaning; example of; examples of; for example;
    detect; detecting; detection; detector; classifier; classify; defend; defence; defense; defenses; mitigate; mitigation; protect against; red team; red teaming; explain why; is it safe; paper; article;
    was bedeutet; bedeutet; erkläre; qu'est-ce que; signifie; qué significa; significa; cosa significa`,
  ...HARM_LEXICONS,
}

/** Cues whose co-occurrence is a feature of its own: not the odd tokens, not the harm categories (their union is). */
const PAIRED: readonly boolean[] = CUE_NAMES.map(
  (name) => name !== 'oddtoken' && !(HARM_CATEGORIES as readonly string[]).includes(name),
)

// Phrase hashes: a word's hash is FNV-1a from WORD_SEED over its characters; two and three
// words combine like the bigram and trigram features (features.ts), with a marker so a
// phrase's hash never equals a single word's. The lexicon table maps each hash to its cues.
const bigramHash = (a: number, b: number) => (Math.imul(a ^ SEED_BIGRAM, PRIME) ^ b) | 0
const trigramHash = (a: number, b: number, c: number) =>
  (Math.imul(Math.imul(a ^ SEED_TRIGRAM, PRIME) ^ b, PRIME) ^ c) | 0

const TABLE_BITS = 13
const TABLE_MASK = (1 << TABLE_BITS) - 1
const tableKeys = new Int32Array(1 << TABLE_BITS)
const tableCues = new Uint32Array(1 << TABLE_BITS)
const tableUsed = new Uint8Array(1 << TABLE_BITS)

function slotOf(hash: number): number {
  let i = (hash ^ (hash >>> 13)) & TABLE_MASK
  while (tableUsed[i] === 1 && tableKeys[i] !== hash) i = (i + 1) & TABLE_MASK
  return i
}

/**
 * A bit per filter slot that some lexicon hash falls in (a Bloom filter with one
 * hash, 8 KB, read before the table): most words of a text are in no phrase,
 * and their lookup ends at one bit instead of a probe of the table. A hash the
 * table holds always has its bit, so the answer is the table's.
 */
const FILTER_BITS = 16
const filter = new Int32Array((1 << FILTER_BITS) >>> 5)

function filterSlot(hash: number): number {
  return Math.imul(hash, 0x9e3779b1) >>> (32 - FILTER_BITS)
}

function cuesOfHash(hash: number): number {
  const f = filterSlot(hash)
  if ((filter[f >>> 5] & (1 << (f & 31))) === 0) return 0
  const i = slotOf(hash)
  return tableUsed[i] === 1 ? tableCues[i] : 0
}

/** One scratch for every lexicon phrase (a fresh one per phrase cost ~0.3 s of start-up in allocations). */
const PHRASE_SCRATCH = new FeatureScratch()

/** The word hashes of a phrase (lower-cased as the features are). */
function wordHashesOf(phrase: string): number[] {
  const scratch = PHRASE_SCRATCH
  const n = prepareFeatureCodes(phrase, scratch)
  const out: number[] = []
  let h = WORD_START
  let inWord = false
  for (let j = 0; j <= n; j = (j + 1) | 0) {
    const c = j < n ? scratch.codes[j]! : 32
    if (isWordAt(scratch.codes, j, n, c, inWord)) {
      h = Math.imul(h ^ c, PRIME)
      inWord = true
    } else if (inWord) {
      out.push(h | 0)
      h = WORD_START
      inWord = false
    }
  }
  return out
}

/** Expand `(a|b) c` into `a c`, `b c`. */
function expand(phrase: string): string[] {
  const m = /\(([^()]*)\)/.exec(phrase)
  if (!m) return [phrase]
  return m[1]
    .split('|')
    .flatMap((alt) => expand(phrase.slice(0, m.index) + alt + phrase.slice(m.index + m[0].length)))
}

/** Phrases of each cue after expansion, lower-cased; for tests and for the table below. */
export const CUE_PHRASES: ReadonlyMap<CueName, readonly string[]> = new Map(
  CUE_NAMES.filter((name) => LEXICONS[name] !== undefined).map((name) => [
    name,
    (LEXICONS[name] ?? '')
      .split(';')
      .map((p) => p.trim().replace(/\s+/g, ' '))
      .filter(Boolean)
      .flatMap(expand),
  ]),
)

const HARM_GOAL_BIT = 1 << CUE_NAMES.indexOf('harmgoal')

/** Put the phrases of the cues `names` into the lexicon table and its filter. */
function addToTable(names: readonly CueName[]): void {
  const tooLong: string[] = []
  for (const name of names) {
    // A phrase of a harm category also fires the union.
    const bit =
      (1 << CUE_NAMES.indexOf(name)) |
      ((HARM_CATEGORIES as readonly string[]).includes(name) ? HARM_GOAL_BIT : 0)
    for (const phrase of CUE_PHRASES.get(name) ?? []) {
      const w = wordHashesOf(phrase)
      if (w.length < 1 || w.length > 3) {
        tooLong.push(phrase)
        continue
      }
      const hash =
        w.length === 1 ? w[0] : w.length === 2 ? bigramHash(w[0], w[1]) : trigramHash(w[0], w[1], w[2])
      const i = slotOf(hash)
      tableUsed[i] = 1
      tableKeys[i] = hash
      tableCues[i] |= bit
      const f = filterSlot(hash)
      filter[f >>> 5] |= 1 << (f & 31)
    }
  }
  if (tooLong.length) throw new Error(`cue phrases must have one to three words: ${tooLong.join('; ')}`)
}

addToTable(CUE_NAMES.slice(0, BASE_CUE_COUNT))
let harmPhrasesInTable = false

/**
 * Make the cue scan count the cues of a model's set (its `cueCount`). The harmful-goal
 * phrases (more than the other cues' together) join the table only when a model or
 * the training asks for them, so a model of the base set scans with the table and filter
 * of 0.5.7 and costs what it did. A model ignores the counts of cues past its set
 * ({@link cueFeaturesOfCounts}), so one process can hold models of both sets.
 */
export function useCueSet(cueCount: number): void {
  if (cueCount <= BASE_CUE_COUNT || harmPhrasesInTable) return
  harmPhrasesInTable = true
  addToTable(CUE_NAMES.slice(BASE_CUE_COUNT))
}

const DECORATION = CUE_NAMES.indexOf('decoration')
const ODD_TOKEN = CUE_NAMES.indexOf('oddtoken')
const MAX_COUNT = 4

/** Characters of separator banners ("===", "###", "+++", "$$$"), as runs of three or more; not `>>>` (doctests, quoting). */
const BANNER = new Uint8Array(128)
for (const c of '#=*+-~$_|!') BANNER[c.charCodeAt(0)] = 1
/** Characters of adversarial suffixes: brackets and a few symbols. */
const ODD = new Uint8Array(128)
for (const c of '(){}[]<>|\\`$^') ODD[c.charCodeAt(0)] = 1

function bump(counts: Uint8Array, cues: number): void {
  for (let k = 0; cues !== 0; k++, cues >>>= 1) if (cues & 1 && counts[k] < MAX_COUNT) counts[k]++
}

/**
 * How many times (at most 4) each cue fires in the prepared codes
 * `codes[0..n)` (features.ts `prepareFeatureCodes`), in {@link CUE_NAMES}
 * order. One pass: words, their bigrams and trigrams looked up in the lexicon
 * table; banner runs; tokens that mix a letter with three or more brackets or
 * symbols (`Herezak({[HTMLsvg`), the shape of optimised adversarial suffixes.
 */
export function cueCountsOfCodes(codes: Uint16Array, n: number, counts: Uint8Array): Uint8Array {
  counts.fill(0)
  let h = WORD_START
  let inWord = false
  let w1 = 0
  let w2 = 0
  let words = 0
  let run = 0
  let runChar = -1
  let odd = 0
  let letter = false
  for (let j = 0; j <= n; j = (j + 1) | 0) {
    const c = j < n ? codes[j] : 32
    // A lower-case ASCII letter (most characters of prose) only continues a word:
    // no banner character, not a space, not odd, a word character.
    if (c >= 0x61 && c <= 0x7a) {
      runChar = -1
      letter = true
      h = Math.imul(h ^ c, PRIME)
      inWord = true
      continue
    }
    // Banners and odd tokens.
    if (c < 128 && BANNER[c] === 1) {
      run = c === runChar ? run + 1 : 1
      runChar = c
      if (run === 3 && counts[DECORATION] < MAX_COUNT) counts[DECORATION]++
    } else runChar = -1
    if (c === 32) {
      if (odd >= 3 && letter && counts[ODD_TOKEN] < MAX_COUNT) counts[ODD_TOKEN]++
      odd = 0
      letter = false
    } else if (c < 128) {
      if (ODD[c] === 1) odd++
      else if (c >= 0x61 && c <= 0x7a) letter = true
    }
    // Words.
    if (isWordAt(codes, j, n, c, inWord)) {
      h = Math.imul(h ^ c, PRIME)
      inWord = true
      continue
    }
    // A phrase does not run across the end of a sentence or a clause.
    const stop = c === 46 || c === 63 || c === 33 || c === 59 || c === 58
    if (!inWord) {
      if (stop) words = 0
      continue
    }
    const w = h | 0
    let cues = cuesOfHash(w)
    if (words >= 1) cues |= cuesOfHash(bigramHash(w2, w))
    if (words >= 2) cues |= cuesOfHash(trigramHash(w1, w2, w))
    if (cues !== 0) bump(counts, cues)
    w1 = w2
    w2 = w
    words = stop ? 0 : words + 1
    h = WORD_START
    inWord = false
  }
  return counts
}

/**
 * {@link hashFeatures} (features.ts) and {@link cueCountsOfCodes} in one pass
 * over the words: both cut words with `isWordAt` and hash them the same way,
 * so the word n-gram features and the cue lexicon lookups share each word's
 * hash and each bigram's and trigram's. Writes exactly what the two write (the
 * features to `out` in the same order, the counts to `counts`) and returns how
 * many features; `test/cues.test.ts` compares it with the two on many texts.
 */
export function hashFeaturesAndCues(
  codes: Uint16Array,
  n: number,
  bits: number,
  out: Int32Array,
  counts: Uint8Array,
  seen?: FeatureBitSet,
): number {
  const mask = (1 << bits) - 1
  const set = seen?.words
  let count = set ? hashDistinctCharGrams(codes, n, mask, out, set) : hashCharGrams(codes, n, mask, out)
  counts.fill(0)
  let h = WORD_START
  let inWord = false
  // The last two words' hashes, as both loops keep them: `previous` is cueCountsOfCodes' w2, `beforePrevious` its w1.
  let previous = 0
  let beforePrevious = 0
  let words = 0
  let run = 0
  let runChar = -1
  let odd = 0
  let letter = false
  for (let j = 0; j <= n; j++) {
    const c = j < n ? codes[j] : 32
    if (c >= 0x61 && c <= 0x7a) {
      runChar = -1
      letter = true
      h = Math.imul(h ^ c, PRIME)
      inWord = true
      continue
    }
    if (c < 128 && BANNER[c] === 1) {
      run = c === runChar ? run + 1 : 1
      runChar = c
      if (run === 3 && counts[DECORATION] < MAX_COUNT) counts[DECORATION]++
    } else runChar = -1
    if (c === 32) {
      if (odd >= 3 && letter && counts[ODD_TOKEN] < MAX_COUNT) counts[ODD_TOKEN]++
      odd = 0
      letter = false
    } else if (c < 128 && ODD[c] === 1) odd++
    if (isWordAt(codes, j, n, c, inWord)) {
      h = Math.imul(h ^ c, PRIME)
      inWord = true
      continue
    }
    const stop = c === 46 || c === 63 || c === 33 || c === 59 || c === 58
    if (!inWord) {
      if (stop) words = 0
      continue
    }
    count = pushFeature(out, count, (h ^ (h >>> 13)) & mask, set)
    let cues = cuesOfHash(h)
    // The bigram and trigram hashes are bigramHash and trigramHash of the same words.
    const b = Math.imul(previous ^ SEED_BIGRAM, PRIME) ^ h
    const t = Math.imul(Math.imul(beforePrevious ^ SEED_TRIGRAM, PRIME) ^ previous, PRIME) ^ h
    if (previous !== 0) {
      count = pushFeature(out, count, (b ^ (b >>> 16)) & mask, set)
      if (beforePrevious !== 0) count = pushFeature(out, count, (t ^ (t >>> 16)) & mask, set)
    }
    if (words >= 1) cues |= cuesOfHash(b)
    if (words >= 2) cues |= cuesOfHash(t)
    if (cues !== 0) bump(counts, cues)
    beforePrevious = previous
    previous = h
    words = stop ? 0 : words + 1
    h = WORD_START
    inWord = false
  }
  return count
}

const scratch = new FeatureScratch()

/** {@link cueCountsOfCodes} of a text (prepares it first). */
export function cueCounts(text: string, counts = new Uint8Array(CUE_NAMES.length)): Uint8Array {
  const n = prepareFeatureCodes(text, scratch)
  return cueCountsOfCodes(scratch.codes, n, counts)
}

const CUE_SEED = 0x3b9aca07

function hashCue(a: number, b: number, c: number, mask: number): number {
  let h = Math.imul(CUE_SEED ^ a, PRIME)
  h = Math.imul(h ^ b, PRIME)
  h = Math.imul(h ^ c, PRIME)
  return (h ^ (h >>> 15)) & mask
}

/**
 * Write the cue feature indices for `counts` (each below `2 ** bits`) to
 * `out`; returns how many. A cue that fires gives one feature, two when it
 * fires twice, three when four times; each pair of paired cues that both
 * fire gives one more. Only the first `cueCount` cues count (the model's cue
 * set, {@link CUE_SETS}).
 */
export function cueFeaturesOfCounts(
  counts: Uint8Array,
  bits: number,
  out: Int32Array,
  cueCount: number = BASE_CUE_COUNT,
): number {
  const mask = (1 << bits) - 1
  let n = 0
  for (let k = 0; k < cueCount; k++) {
    const c = counts[k]
    if (c === 0) continue
    out[n++] = hashCue(1, k, 1, mask)
    if (c >= 2) out[n++] = hashCue(1, k, 2, mask)
    if (c >= 4) out[n++] = hashCue(1, k, 4, mask)
    if (!PAIRED[k]) continue
    for (let j = 0; j < k; j++) if (counts[j] !== 0 && PAIRED[j]) out[n++] = hashCue(2, j, k, mask)
  }
  return n
}

/** The cue feature indices of a text, written to `out`; returns how many (training). */
export function cueFeatures(
  text: string,
  bits: number,
  out: Int32Array,
  counts = new Uint8Array(CUE_NAMES.length),
  cueCount: number = BASE_CUE_COUNT,
): number {
  useCueSet(cueCount)
  return cueFeaturesOfCounts(cueCounts(text, counts), bits, out, cueCount)
}

/** Most cue features one text can have: three per cue and one per pair. */
export const MAX_CUE_FEATURES = 3 * CUE_NAMES.length + (CUE_NAMES.length * (CUE_NAMES.length - 1)) / 2
