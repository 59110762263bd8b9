import type { SessionState } from '@gov/core'

/** Field of the tool-call count in the session. */
export const CALLS_FIELD = 'n'
/** Field of the turn count in the session. */
export const TURNS_FIELD = 't'
const SLOT_PREFIX = 'h'

/** One remembered tool call: its number in the session, the tool, and the call's hash when cycles compare whole calls. */
export interface HistoryEntry {
  readonly seq: number
  readonly name: string
  readonly hash?: string
}

/**
 * The last `size` tool calls of a session, as a ring of fields in the
 * session's state. The call number comes from an atomic `incr`, so concurrent
 * calls (on any replica) take different slots; each slot stores its number, so
 * a slot not yet written or overwritten reads as a gap, never as a wrong call.
 * Every append costs one increment, one write and one read of `size` fields,
 * whatever the conversation's length.
 */
export class CallHistory {
  constructor(readonly size: number) {}

  /** Count a tool call and, when `remember`, keep it; returns its number and the calls before it (oldest first, no gap). */
  async append(
    session: SessionState,
    call: { name: string; hash?: string },
    remember: boolean,
  ): Promise<{ seq: number; recent: HistoryEntry[] }> {
    const seq = await session.incr(CALLS_FIELD)
    if (!remember) return { seq, recent: [] }
    const entry: HistoryEntry = { seq, ...call }
    const earlier: number[] = []
    for (let k = Math.max(1, seq - this.size + 1); k < seq; k++) earlier.push(k)
    const [, values] = await Promise.all([
      session.set(this.#slot(seq), JSON.stringify([seq, call.name, call.hash ?? null])),
      earlier.length ? session.getMany(earlier.map((k) => this.#slot(k))) : Promise.resolve([]),
    ])
    const recent: HistoryEntry[] = []
    earlier.forEach((k, i) => {
      const e = parseEntry(values[i])
      if (e?.seq === k) recent.push(e)
      else recent.length = 0 // a gap: only calls after it are known to be in order
    })
    recent.push(entry)
    return { seq, recent }
  }

  /** The remembered calls of a session's fields (from `entries()`), oldest first. */
  static fromFields(fields: Record<string, string>): HistoryEntry[] {
    const out: HistoryEntry[] = []
    for (const [field, value] of Object.entries(fields)) {
      if (!field.startsWith(SLOT_PREFIX)) continue
      const e = parseEntry(value)
      if (e) out.push(e)
    }
    return out.sort((a, b) => a.seq - b.seq)
  }

  #slot(seq: number): string {
    return `${SLOT_PREFIX}${seq % this.size}`
  }
}

function parseEntry(raw: string | undefined): HistoryEntry | undefined {
  if (raw === undefined) return undefined
  try {
    const [seq, name, hash] = JSON.parse(raw) as [unknown, unknown, unknown]
    if (typeof seq !== 'number' || typeof name !== 'string') return undefined
    return typeof hash === 'string' ? { seq, name, hash } : { seq, name }
  } catch {
    return undefined
  }
}
