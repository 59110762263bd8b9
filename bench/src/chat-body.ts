import { type PromptParts, promptText } from './prompts.js'

/** The model name sent; the mock echoes whatever it gets. */
export const BENCH_MODEL = 'gpt-4o-mini'

const PREFIX = `{"model":"${BENCH_MODEL}","stream":false,"max_tokens":512,"messages":[{"role":"system","content":"You are a helpful assistant. Answer briefly and concretely."},{"role":"user","content":`
const SUFFIX = '}]}'

/** A non-streaming `/v1/chat/completions` body whose user message is prompt `n`. */
export function chatBody(parts: readonly PromptParts[], n: number): string {
  return PREFIX + JSON.stringify(promptText(parts, n)) + SUFFIX
}
