import type { Exchange } from '@gov/core'
import type { CallState } from '../chain/chain-runner.js'

/**
 * The step-state entry a step sets to narrow the tools a capability token
 * grants: `ctx.state.set('tools_allowed', ['search', …])`. Entries of several
 * steps intersect, so a step can only take tools away, never add one the
 * request did not offer.
 */
export const TOOLS_ALLOWED = 'tools_allowed'

function namesIn(value: unknown): ReadonlySet<string> {
  if (!Array.isArray(value) && !(value instanceof Set)) return new Set()
  return new Set([...value].filter((name): name is string => typeof name === 'string'))
}

/**
 * The tools the agent may call in this session: the names of the tools the
 * request offered, narrowed by every `tools_allowed` entry a step left in the
 * call state. A malformed entry narrows to nothing (fail closed).
 */
export function allowedTools(exchange: Exchange, state: CallState): string[] {
  let allowed = [...new Set(exchange.tools.map((tool) => tool.name))]
  for (const step of state.stepsRun) {
    const entry = state.stateOf(step).get(TOOLS_ALLOWED)
    if (entry === undefined) continue
    const keep = namesIn(entry)
    allowed = allowed.filter((name) => keep.has(name))
  }
  return allowed
}
