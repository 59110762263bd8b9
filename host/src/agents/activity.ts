/** Outcome of one governed call, as the fleet overview counts it. */
export type CallOutcome = 'allowed' | 'blocked' | 'error'

interface AgentStats {
  outcomes: CallOutcome[]
  flagged: boolean[]
  calls: number
  lastSeen: number
}

/** How many recent calls an agent's score looks at. */
const WINDOW = 100

/**
 * Recent call outcomes per agent, kept in process, for `/health/overview` and
 * the `gov_active_agents` gauge.
 *
 * Health score (0–100) over the agent's last 100 calls on this replica:
 * `100 − 60·blocked_rate − 25·error_rate − 15·flagged_rate`, where flagged
 * means a call with at least one finding that was not blocked. An agent with
 * no calls scores 100.
 */
export class AgentActivity {
  readonly #stats = new Map<string, AgentStats>()

  constructor(private readonly now: () => number = Date.now) {}

  record(agentId: string, outcome: CallOutcome, flagged: boolean): void {
    let stats = this.#stats.get(agentId)
    if (!stats) {
      stats = { outcomes: [], flagged: [], calls: 0, lastSeen: 0 }
      this.#stats.set(agentId, stats)
    }
    stats.outcomes.push(outcome)
    stats.flagged.push(flagged && outcome === 'allowed')
    if (stats.outcomes.length > WINDOW) {
      stats.outcomes.shift()
      stats.flagged.shift()
    }
    stats.calls += 1
    stats.lastSeen = this.now()
  }

  forget(agentId: string): void {
    this.#stats.delete(agentId)
  }

  /** Agents with a call within `windowMs` (default 5 minutes). */
  activeCount(windowMs = 5 * 60_000): number {
    const since = this.now() - windowMs
    let count = 0
    for (const stats of this.#stats.values()) if (stats.lastSeen >= since) count += 1
    return count
  }

  /** Score and counters of one agent. */
  summary(agentId: string) {
    const stats = this.#stats.get(agentId)
    if (!stats || stats.outcomes.length === 0) {
      return { score: 100, calls: 0, blocked: 0, errors: 0, flagged: 0, last_seen: null as string | null }
    }
    const n = stats.outcomes.length
    const blocked = stats.outcomes.filter((o) => o === 'blocked').length
    const errors = stats.outcomes.filter((o) => o === 'error').length
    const flagged = stats.flagged.filter(Boolean).length
    const score = Math.max(0, Math.round(100 - (60 * blocked + 25 * errors + 15 * flagged) / n))
    return {
      score,
      calls: stats.calls,
      blocked,
      errors,
      flagged,
      last_seen: new Date(stats.lastSeen).toISOString(),
    }
  }
}
