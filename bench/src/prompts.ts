import { CLOSERS, OPENERS, TOPIC_NAMES, TOPICS } from './prompt-corpus.js'
import { seededRandom, shuffled } from './random.js'

/** Target size of a prompt in characters (≈ bytes: the corpus is ASCII). */
export const PROMPT_CHARS = 1024

/** A prompt split into parts, so millions of distinct prompts come from a few hundred bodies. */
export interface PromptParts {
  /** Opening requests (each mentions the body's topic). */
  readonly openers: readonly string[]
  readonly body: string
  readonly closers: readonly string[]
}

/**
 * `count` prompt bodies of about 1 KB with their openers and closers, the same
 * on every run (`seed`). A body is several context sentences of one topic in
 * a random order; prompt `n` combines body `n % count` with an opener and a
 * closer chosen by the higher digits of `n`, so consecutive requests never
 * repeat a text and per-text caches cannot hide the cost of looking.
 */
export function buildPromptParts(count = 400, seed = 20_251_122): PromptParts[] {
  const random = seededRandom(seed)
  const topics = Object.keys(TOPICS)
  const out: PromptParts[] = []
  for (let i = 0; i < count; i++) {
    const topic = topics[i % topics.length]!
    const openers = shuffled(
      random,
      OPENERS.flatMap((o) => TOPIC_NAMES[topic]!.map((name) => o.replace('{topic}', name))),
    )
    let body = ''
    for (const sentence of shuffled(random, TOPICS[topic]!)) {
      // Leave room for an opener and a closer of about 60–80 characters each.
      if (body.length + sentence.length + 1 > PROMPT_CHARS - 150) break
      body = body ? `${body} ${sentence}` : sentence
    }
    out.push({ openers, body, closers: CLOSERS })
  }
  return out
}

/** The text of prompt `n` (any non-negative integer). */
export function promptText(parts: readonly PromptParts[], n: number): string {
  const p = parts[n % parts.length]!
  const round = Math.floor(n / parts.length)
  const opener = p.openers[round % p.openers.length]!
  const closer = p.closers[Math.floor(round / p.openers.length) % p.closers.length]!
  return `${opener} ${p.body} ${closer}`
}

/** How many different texts {@link promptText} gives before it repeats. */
export function distinctPrompts(parts: readonly PromptParts[]): number {
  const p = parts[0]!
  return parts.length * p.openers.length * p.closers.length
}
