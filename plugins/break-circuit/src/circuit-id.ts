import { createHash } from 'node:crypto'
import type { Exchange } from '@gov/core'

/**
 * The key of one circuit: the endpoint format and the model. The host routes a
 * (format, model) pair to exactly one provider before any step runs (OpenAI
 * endpoint: `claude-*` to Anthropic's OpenAI-compatible endpoint, the rest to
 * OpenAI; Anthropic endpoint: Anthropic), so this pair names one provider and
 * model, and it is known in the request phase, where the provider's name is not
 * given to steps. Circuits are global (not per agent): they describe the
 * provider. The model is the only caller-chosen part; it is encoded, and a very
 * long one hashed, so any string makes a safe key.
 */
export function circuitId(exchange: Pick<Exchange, 'vendor' | 'model'>): string {
  const model = encodeURIComponent(exchange.model)
  const name =
    model.length <= 200 ? model : `sha256-${createHash('sha256').update(exchange.model).digest('hex')}`
  return `${exchange.vendor}:${name}`
}
