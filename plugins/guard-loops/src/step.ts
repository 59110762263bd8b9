import type {
  HookContext,
  RequestContext,
  SessionState,
  SessionStore,
  StepCounter,
  StepInstance,
  StepServices,
  ToolCallContext,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { callHash } from './call-hash.js'
import { CALLS_FIELD, CallHistory, TURNS_FIELD } from './call-history.js'
import { findCycle } from './cycles.js'
import { LOOP_DETECTED, type LoopRule } from './errors.js'
import type { GuardLoopsSettings } from './settings.js'

/** Call-state key: the hashes of the calls this answer already counted. */
const SEEN_KEY = 'guard_loops:seen'

/**
 * One configured guard_loops step. It counts what the model does, once, as
 * each answer passes (`onToolCall`), and turns per call (`onRequest`), in the
 * call's session — or, without `X-Gov-Session`, the agent's own scope. It never
 * re-reads the conversation, so a turn costs the same at turn 5 and turn 500.
 *
 * - `max_repeats`: same tool, same normalised arguments, within `window_s`: a
 *   counter per call hash with its own window in the key-value store;
 * - `max_tool_calls` / `max_turns`: counters in the session;
 * - cycles: the last calls kept as a bounded ring in the session.
 * Over a limit the answer (or, for turns, the call) is refused: 429 `loop_detected`.
 */
export class GuardLoopsStep implements StepInstance {
  readonly #settings: GuardLoopsSettings
  readonly #services: StepServices
  readonly #sessions: SessionStore
  readonly #history: CallHistory
  readonly #detections: StepCounter

  constructor(settings: GuardLoopsSettings, services: StepServices) {
    this.#settings = settings
    this.#services = services
    this.#sessions = services.sessions({ ttlMs: settings.ttl_s * 1000 })
    this.#history = new CallHistory(settings.cycle_max_length * settings.cycle_repeats)
    this.#detections = services.metrics.counter(
      'gov_loop_detections_total',
      'Loops guard_loops refused, by rule: max_repeats, max_tool_calls, max_turns, cycle',
      ['rule'],
    )
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const limit = this.#settings.max_turns
    if (limit === 0) return Verdicts.continue()
    const turns = await this.#sessions.scope(ctx.call).incr(TURNS_FIELD)
    if (turns <= limit) return Verdicts.continue()
    return this.#refuse(ctx, 'max_turns', `this session made ${turns} calls (limit ${limit})`, {
      count: turns,
      limit,
    })
  }

  async onToolCall(ctx: ToolCallContext): Promise<Verdict> {
    const s = this.#settings
    const { name } = ctx.toolCall
    const hash = callHash(name, ctx.toolCall.arguments.text)
    // One answer counts each distinct call once: the choices of an `n > 1`
    // answer are alternatives (the agent runs one of them), and the same call
    // twice in one answer is one step of the agent, not a loop.
    let seen = ctx.state.get(SEEN_KEY) as Set<string> | undefined
    if (!seen) {
      seen = new Set()
      ctx.state.set(SEEN_KEY, seen)
    }
    if (seen.has(hash)) return Verdicts.continue()
    seen.add(hash)
    const session = this.#sessions.scope(ctx.call)
    const counting = s.detect_cycles || s.max_tool_calls > 0
    const [repeats, history] = await Promise.all([
      s.max_repeats > 0 ? this.#countRepeat(session, hash) : undefined,
      counting
        ? this.#history.append(session, s.cycle_by === 'call' ? { name, hash } : { name }, s.detect_cycles)
        : undefined,
    ])
    if (repeats !== undefined && repeats > s.max_repeats) {
      return this.#refuse(
        ctx,
        'max_repeats',
        `tool '${name}' was called with the same arguments ${repeats} times within ${s.window_s} s (limit ${s.max_repeats})`,
        { tool: name, count: repeats, limit: s.max_repeats },
      )
    }
    if (history && s.max_tool_calls > 0 && history.seq > s.max_tool_calls) {
      return this.#refuse(
        ctx,
        'max_tool_calls',
        `this session's model made ${history.seq} tool calls (limit ${s.max_tool_calls})`,
        { tool: name, count: history.seq, limit: s.max_tool_calls },
      )
    }
    if (history && s.detect_cycles) {
      const keys = history.recent.map((e) => (e.hash === undefined ? e.name : `${e.name}\0${e.hash}`))
      const cycle = findCycle(keys, s.cycle_max_length, s.cycle_repeats)
      if (cycle) {
        const tools = cycle.round.map((k) => history.recent[k]?.name ?? '')
        return this.#refuse(
          ctx,
          'cycle',
          `the model repeated the cycle ${tools.map((t) => `'${t}'`).join(' → ')} ${s.cycle_repeats} times`,
          { tool: name, cycle: tools, rounds: s.cycle_repeats },
        )
      }
    }
    return Verdicts.continue()
  }

  async describeSession(session: SessionState): Promise<Record<string, unknown> | undefined> {
    const fields = await session.entries()
    if (Object.keys(fields).length === 0) return undefined
    return {
      turns: Number(fields[TURNS_FIELD] ?? 0),
      tool_calls: Number(fields[CALLS_FIELD] ?? 0),
      recent_tools: CallHistory.fromFields(fields).map((e) => e.name),
      limits: {
        max_repeats: this.#settings.max_repeats,
        window_s: this.#settings.window_s,
        max_tool_calls: this.#settings.max_tool_calls,
        max_turns: this.#settings.max_turns,
      },
    }
  }

  /** Identical calls in the window: a counter of its own per (agent, session, call) whose TTL is the window. */
  #countRepeat(session: SessionState, hash: string): Promise<number> {
    return this.#services.kv.incr(`${session.key}:r:${hash}`, 1, this.#settings.window_s * 1000)
  }

  #refuse(ctx: HookContext, rule: LoopRule, why: string, detail: Record<string, unknown>): Verdict {
    this.#detections.inc({ rule })
    ctx.report({ type: LOOP_DETECTED, score: 1, level: 'public', detail: { rule, ...detail } })
    return Verdicts.block(LOOP_DETECTED, `loop detected (rule ${rule}): ${why}`, 429)
  }
}
