import { GovError, type Mode } from '@gov/core'
import type { Chain } from '../chain/chain.js'

/** Longest `X-Gov-Flags` value accepted. */
const MAX_FLAGS_LENGTH = 1024
const PAIR = /^([a-z][a-z0-9_-]{0,63})=([A-Za-z0-9_.-]{1,64})$/

/**
 * Parse `X-Gov-Flags: name=value, name=value` (commas or semicolons). Throws
 * GovError 400 `invalid_flags` on bad syntax or a repeated name.
 */
export function parseFlags(header: string | string[] | undefined): Map<string, string> {
  const flags = new Map<string, string>()
  if (header === undefined) return flags
  const text = Array.isArray(header) ? header.join(',') : header
  if (text.length > MAX_FLAGS_LENGTH)
    throw new GovError('invalid_flags', `X-Gov-Flags is longer than ${MAX_FLAGS_LENGTH} characters`, 400)
  for (const raw of text.split(/[,;]/)) {
    const item = raw.trim()
    if (!item) continue
    const match = PAIR.exec(item)
    if (!match)
      throw new GovError('invalid_flags', `X-Gov-Flags entry "${item.slice(0, 80)}" is not name=value`, 400)
    const [, name, value] = match
    if (flags.has(name)) throw new GovError('invalid_flags', `X-Gov-Flags names "${name}" twice`, 400)
    flags.set(name, value)
  }
  return flags
}

/** Flags accepted for one call, and the mode they lead to. */
export interface EffectiveFlags {
  readonly mode: Mode
  readonly flags: ReadonlyMap<string, string>
}

/**
 * Apply caller flags to a chain. A flag may always make governance stricter (a
 * value later in the flag's list than the pipeline's own); it may relax it
 * only when the pipeline lists the flag in `allow_flags`, else the call is
 * refused with 403 `flag_not_allowed`. Unknown flags and values are 400
 * `invalid_flags`; a known flag of a step this pipeline does not run is ignored.
 */
export function applyFlags(
  requested: ReadonlyMap<string, string>,
  chain: Chain,
  /** Every flag some loaded plugin declares; asked only when a flag is not one of this chain's. */
  knownFlags: () => ReadonlySet<string>,
): EffectiveFlags {
  const accepted = new Map<string, string>()
  for (const [name, value] of requested) {
    const rule = chain.flagRules.get(name)
    if (!rule) {
      const known = knownFlags()
      if (known.has(name)) continue
      throw new GovError(
        'invalid_flags',
        `X-Gov-Flags names unknown flag "${name}"; known: ${[...known].sort().join(', ')}`,
        400,
      )
    }
    const wanted = rule.values.indexOf(value)
    if (wanted < 0) {
      throw new GovError(
        'invalid_flags',
        `flag ${name} takes one of ${rule.values.join(', ')}; got "${value}"`,
        400,
      )
    }
    if (wanted < rule.values.indexOf(rule.baseline) && !chain.allowFlags.has(name)) {
      throw new GovError(
        'flag_not_allowed',
        `flag ${name}=${value} would relax this pipeline (${name}=${rule.baseline}); an admin can allow it with allow_flags`,
        403,
      )
    }
    accepted.set(name, value)
  }
  const mode = (accepted.get('mode') as Mode | undefined) ?? chain.mode
  return { mode, flags: accepted }
}
