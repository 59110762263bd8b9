/** Outcome of one governed call, as the fleet overview counts it. */
export type CallOutcome = 'allowed' | 'blocked' | 'error'

/**
 * One call in an agent's window, one character: `a` allowed, `f` allowed with
 * a finding (flagged), `b` blocked, `e` error.
 */
export type ActivityCode = 'a' | 'f' | 'b' | 'e'

/** How many recent calls an agent's score looks at. */
export const ACTIVITY_WINDOW = 100

/** What a store knows of one agent: its last calls (oldest first), its call count and last call time. */
export interface AgentWindow {
  /** Codes of the last {@link ACTIVITY_WINDOW} calls, oldest first. */
  codes: string
  calls: number
  /** Epoch ms of the latest call; undefined when none. */
  lastSeen: number | undefined
}

/**
 * Where call activity is kept: in process (one replica) or shared (Redis, see
 * `host/src/kv/redis-activity.ts`). `append` is on the call path and never
 * waits on the network; reads may.
 */
export interface ActivityStore {
  append(agentId: string, code: ActivityCode, at: number): void
  windows(agentIds: readonly string[]): Promise<AgentWindow[]>
  /** Agents whose last call is at or after `since` (epoch ms). */
  activeCount(since: number): Promise<number>
  forget(agentId: string): Promise<void>
}

/** The in-process store: what this replica saw. */
export class MemoryActivityStore implements ActivityStore {
  readonly #agents = new Map<string, AgentWindow>()

  append(agentId: string, code: ActivityCode, at: number): void {
    let window = this.#agents.get(agentId)
    if (!window) {
      window = { codes: '', calls: 0, lastSeen: undefined }
      this.#agents.set(agentId, window)
    }
    window.codes = (window.codes + code).slice(-ACTIVITY_WINDOW)
    window.calls += 1
    window.lastSeen = at
  }

  async windows(agentIds: readonly string[]): Promise<AgentWindow[]> {
    return agentIds.map((id) => {
      const w = this.#agents.get(id)
      return w ? { ...w } : { codes: '', calls: 0, lastSeen: undefined }
    })
  }

  async activeCount(since: number): Promise<number> {
    let count = 0
    for (const w of this.#agents.values()) if (w.lastSeen !== undefined && w.lastSeen >= since) count += 1
    return count
  }

  async forget(agentId: string): Promise<void> {
    this.#agents.delete(agentId)
  }
}

/** Score and counters of one agent, as `/health/overview` and `GET /agents/{id}` show them. */
export interface AgentSummary {
  score: number
  calls: number
  blocked: number
  errors: number
  flagged: number
  last_seen: string | null
}

/** Score and counters from an agent's window. */
export function summarize(window: AgentWindow): AgentSummary {
  const n = window.codes.length
  if (n === 0) {
    return { score: 100, calls: window.calls, blocked: 0, errors: 0, flagged: 0, last_seen: seen(window) }
  }
  let blocked = 0
  let errors = 0
  let flagged = 0
  for (const c of window.codes) {
    if (c === 'b') blocked += 1
    else if (c === 'e') errors += 1
    else if (c === 'f') flagged += 1
  }
  const score = Math.max(0, Math.round(100 - (60 * blocked + 25 * errors + 15 * flagged) / n))
  return { score, calls: window.calls, blocked, errors, flagged, last_seen: seen(window) }
}

function seen(window: AgentWindow): string | null {
  return window.lastSeen === undefined ? null : new Date(window.lastSeen).toISOString()
}

function codeOf(outcome: CallOutcome, flagged: boolean): ActivityCode {
  if (outcome === 'blocked') return 'b'
  if (outcome === 'error') return 'e'
  return flagged ? 'f' : 'a'
}

/**
 * Recent call outcomes per agent, for `/health/overview` and the
 * `gov_active_agents` gauge. With Redis the store is shared, so every replica
 * answers the same; without, it is this process's calls.
 *
 * Health score (0–100) over the agent's last 100 calls:
 * `100 − 60·blocked_rate − 25·error_rate − 15·flagged_rate`, where flagged
 * means a call with at least one finding that was not blocked. An agent with
 * no calls scores 100.
 */
export class AgentActivity {
  readonly #store: ActivityStore
  readonly #now: () => number

  constructor(options: { store?: ActivityStore | undefined; now?: () => number } = {}) {
    this.#store = options.store ?? new MemoryActivityStore()
    this.#now = options.now ?? Date.now
  }

  /** Count one finished call. Never waits: a shared store batches its writes. */
  record(agentId: string, outcome: CallOutcome, flagged: boolean): void {
    this.#store.append(agentId, codeOf(outcome, flagged), this.#now())
  }

  forget(agentId: string): Promise<void> {
    return this.#store.forget(agentId)
  }

  /** Agents with a call within `windowMs` (default 5 minutes). */
  activeCount(windowMs = 5 * 60_000): Promise<number> {
    return this.#store.activeCount(this.#now() - windowMs)
  }

  /** Score and counters of one agent. */
  async summary(agentId: string): Promise<AgentSummary> {
    const [window] = await this.#store.windows([agentId])
    return summarize(window as AgentWindow)
  }

  /** Score and counters of several agents, in the order given (one round trip with Redis). */
  async summaries(agentIds: readonly string[]): Promise<AgentSummary[]> {
    return (await this.#store.windows(agentIds)).map(summarize)
  }
}
