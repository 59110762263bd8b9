/** The pure parts of `bench:conversation`: conversation bodies and the flatness verdict on RSS samples. */
import { BENCH_MODEL } from './chat-body.js'
import { type PromptParts, promptText } from './prompts.js'

const SYSTEM = { role: 'system', content: 'You are a helpful assistant. Answer briefly and concretely.' }

/**
 * The body of turn `answers.length + 1` of a conversation whose user turns are
 * prompts `first`, `first + 1`, …: every earlier user turn with the answer it
 * got, then the new user turn — what a chat client resends on every turn.
 */
export function conversationBody(
  parts: readonly PromptParts[],
  first: number,
  answers: readonly string[],
): string {
  const messages: { role: string; content: string }[] = [SYSTEM]
  answers.forEach((answer, i) => {
    messages.push({ role: 'user', content: promptText(parts, first + i) })
    messages.push({ role: 'assistant', content: answer })
  })
  messages.push({ role: 'user', content: promptText(parts, first + answers.length) })
  return JSON.stringify({ model: BENCH_MODEL, stream: false, max_tokens: 512, messages })
}

export interface Flatness {
  first: number
  last: number
  min: number
  max: number
  /** Largest distance of any sample from the first, as a fraction of the first. */
  maxDrift: number
  flat: boolean
}

/** Whether every sample stays within ±`tolerance` (a fraction) of the first. */
export function flatness(samples: readonly number[], tolerance = 0.1): Flatness {
  if (samples.length < 2) throw new Error('flatness needs at least two samples')
  const first = samples[0]!
  const min = Math.min(...samples)
  const max = Math.max(...samples)
  const maxDrift = Math.max(max - first, first - min) / first
  return { first, last: samples.at(-1)!, min, max, maxDrift, flat: maxDrift <= tolerance }
}
