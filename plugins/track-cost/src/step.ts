import type {
  Answer,
  Exchange,
  OutcomeContext,
  RequestContext,
  SessionState,
  SessionStore,
  StepCounter,
  StepInstance,
  StepServices,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { BUDGET_EXCEEDED, MODEL_PRICE_UNKNOWN } from './errors.js'
import { type Hold, Holds } from './holds.js'
import { Ledger, periodsOf, roundUsd, SESSION_USD, type Spend, secondsToRenewal, toUsd } from './ledger.js'
import { type CallUsage, Pricing } from './pricing.js'
import type { BudgetName, TrackCostSettings } from './settings.js'

/** A budget a call would go over. */
interface Overrun {
  readonly budget: BudgetName
  readonly limit: number
  readonly spent: number
  /** Estimates of other calls in flight, held against the same budget. */
  readonly held: number
  readonly estimate: number
  /** Seconds until the budget renews (daily, monthly); none for a session. */
  readonly retryAfterS?: number
}

/** Key of the per-call scratch state: the estimate this call holds against its budgets. */
const HOLD = 'hold'

const money = (usd: number) => `$${roundUsd(usd).toFixed(usd !== 0 && Math.abs(usd) < 0.01 ? 6 : 2)}`

const BUDGET_LABELS: Readonly<Record<BudgetName, string>> = {
  agent_daily_usd: "the agent's daily budget",
  agent_monthly_usd: "the agent's monthly budget",
  session_usd: "the session's budget",
}

/**
 * One configured track_cost step. Request phase: estimate the call's cost
 * (input tokens counted, output tokens from `max_tokens` or a default) and
 * refuse it before it goes upstream when it would exceed a budget (429
 * `budget_exceeded`, saying how much is left). Outcome phase: price the tokens
 * the provider reports (or counted, when it reports none) and add the cost to
 * the agent's day and month and the session, atomically.
 */
export class TrackCostStep implements StepInstance {
  readonly #settings: TrackCostSettings
  readonly #services: StepServices
  readonly #pricing: Pricing
  readonly #ledger: Ledger
  readonly #holds: Holds
  readonly #sessions: SessionStore
  readonly #cost: StepCounter
  readonly #tokens: StepCounter
  readonly #refusals: StepCounter
  readonly #hasBudget: boolean
  /** pino's `isLevelEnabled` when the logger has it: a debug line that would be dropped is not built. */
  readonly #levelEnabled: ((level: string) => boolean) | undefined

  constructor(settings: TrackCostSettings, services: StepServices) {
    this.#settings = settings
    this.#services = services
    this.#pricing = new Pricing(settings.prices, services.prices)
    this.#ledger = new Ledger(services.kv)
    this.#holds = new Holds(services.kv, settings.hold_s * 1000)
    this.#sessions = services.sessions({ ttlMs: settings.session_ttl_s * 1000 })
    const b = settings.budgets
    const logger = services.logger as { isLevelEnabled?: (level: string) => boolean }
    this.#levelEnabled =
      typeof logger.isLevelEnabled === 'function' ? logger.isLevelEnabled.bind(logger) : undefined
    this.#hasBudget =
      b.agent_daily_usd !== undefined || b.agent_monthly_usd !== undefined || b.session_usd !== undefined
    this.#cost = services.metrics.counter('gov_cost_usd_total', 'Cost of upstream calls in USD', [
      'agent',
      'model',
    ])
    this.#tokens = services.metrics.counter(
      'gov_tokens_total',
      'Tokens of upstream calls, as reported by the provider (or counted when it reports none)',
      ['agent', 'model', 'direction'],
    )
    this.#refusals = services.metrics.counter(
      'gov_budget_refusals_total',
      'Calls track_cost refused: budget_exceeded (by budget) or model_price_unknown',
      ['reason'],
    )
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const { exchange, call } = ctx
    if (!this.#hasBudget && this.#settings.unknown_model === 'allow') return Verdicts.continue()
    if (!this.#pricing.knows(exchange.model)) {
      ctx.report({
        type: MODEL_PRICE_UNKNOWN,
        score: 1,
        level: 'public',
        detail: { model: exchange.model, action: this.#settings.unknown_model },
      })
      if (this.#settings.unknown_model === 'block') {
        this.#refusals.inc({ reason: MODEL_PRICE_UNKNOWN })
        return Verdicts.block(
          MODEL_PRICE_UNKNOWN,
          `no price is known for model '${exchange.model}', and this pipeline refuses models it cannot price`,
          403,
        )
      }
    }
    if (!this.#hasBudget) return Verdicts.continue()
    const estimate = this.estimate(exchange) ?? 0
    const now = this.#services.now()
    const session = this.#sessions.of(call)
    const scopes = this.#holdScopes(call.agentId, session)
    const [spend, { hold, totals }] = await Promise.all([
      this.#ledger.read(call.agentId, now, session),
      this.#holds.take(scopes.keys, now, estimate),
    ])
    // What other calls in flight hold, per scope (the totals include this call's own estimate).
    const heldAgent = scopes.agent < 0 ? 0 : Math.max(0, (totals[scopes.agent] ?? 0) - estimate)
    const heldSession = scopes.session < 0 ? 0 : Math.max(0, (totals[scopes.session] ?? 0) - estimate)
    const overrun = this.#overrun(spend, { agent: heldAgent, session: heldSession }, estimate, now)
    if (!overrun) {
      ctx.state.set(HOLD, hold)
      return Verdicts.continue()
    }
    await this.#holds.release(hold)
    const left = Math.max(0, overrun.limit - overrun.spent - overrun.held)
    this.#refusals.inc({ reason: BUDGET_EXCEEDED })
    ctx.report({
      type: BUDGET_EXCEEDED,
      score: 1,
      level: 'public',
      detail: {
        budget: overrun.budget,
        limit_usd: overrun.limit,
        spent_usd: roundUsd(overrun.spent),
        held_usd: roundUsd(overrun.held),
        remaining_usd: roundUsd(left),
        estimate_usd: roundUsd(estimate),
      },
    })
    return Verdicts.block(
      BUDGET_EXCEEDED,
      `${BUDGET_LABELS[overrun.budget]} (${overrun.budget}) of ${money(overrun.limit)} has ${money(left)} left; this call is estimated at ${money(estimate)}`,
      429,
      overrun.retryAfterS === undefined ? undefined : { 'retry-after': String(overrun.retryAfterS) },
    )
  }

  async onUpstreamOutcome(ctx: OutcomeContext): Promise<void> {
    const { outcome, exchange, call } = ctx
    // A retried call reports a second outcome; its estimate was held once.
    const hold = ctx.state.get(HOLD) as Hold | undefined
    if (hold) ctx.state.delete(HOLD)
    // A failed call is not billed by the providers gov speaks to.
    if (outcome.kind !== 'success') {
      if (hold) await this.#holds.release(hold)
      return
    }
    const reported = outcome.usage
    const estimated = reported?.inputTokens === undefined || reported?.outputTokens === undefined
    const inputTokens = reported?.inputTokens ?? this.#services.tokens.countRequest(exchange)
    const outputTokens = reported?.outputTokens ?? this.#countAnswer(outcome.answer, exchange.model)
    const agent = call.agentId
    const model = exchange.model
    this.#tokens.inc({ agent, model, direction: 'input' }, inputTokens)
    this.#tokens.inc({ agent, model, direction: 'output' }, outputTokens)
    // Cache counts are parts of the reported input count: kept only when that count was reported.
    const cachedInputTokens = estimated ? undefined : reported?.cachedInputTokens
    const cacheWriteInputTokens = estimated ? undefined : reported?.cacheWriteInputTokens
    // The one-hour part of the writes (priced higher), kept only with the writes' count.
    const cacheWrite1hInputTokens =
      cacheWriteInputTokens === undefined ? undefined : reported?.cacheWrite1hInputTokens
    const usage: CallUsage = { inputTokens, outputTokens }
    if (cachedInputTokens !== undefined) usage.cachedInputTokens = cachedInputTokens
    if (cacheWriteInputTokens !== undefined) usage.cacheWriteInputTokens = cacheWriteInputTokens
    if (cacheWrite1hInputTokens !== undefined) usage.cacheWrite1hInputTokens = cacheWrite1hInputTokens
    // For the finding and the debug line; no object when no cache count was reported.
    const cacheDetail =
      cachedInputTokens === undefined && cacheWriteInputTokens === undefined
        ? undefined
        : {
            ...(cachedInputTokens !== undefined ? { cached_input_tokens: cachedInputTokens } : {}),
            ...(cacheWriteInputTokens !== undefined
              ? { cache_write_input_tokens: cacheWriteInputTokens }
              : {}),
            ...(cacheWrite1hInputTokens !== undefined
              ? { cache_write_1h_input_tokens: cacheWrite1hInputTokens }
              : {}),
          }
    const usd =
      this.#pricing.cost(outcome.answer.model, usage, ctx.provider) ??
      this.#pricing.cost(model, usage, ctx.provider)
    if (usd === undefined) {
      ctx.report({
        type: MODEL_PRICE_UNKNOWN,
        score: 1,
        level: 'public',
        detail: { model, input_tokens: inputTokens, output_tokens: outputTokens, ...cacheDetail },
      })
      if (hold) await this.#holds.release(hold)
      return
    }
    this.#cost.inc({ agent, model }, usd)
    // One round trip; the spend is sent first, so for a moment the call counts twice, never zero times.
    const add =
      usd > 0 ? this.#ledger.add(agent, this.#services.now(), this.#sessions.of(call), usd) : undefined
    if (hold) await Promise.all([add, this.#holds.release(hold)])
    else await add
    // No finding: a finding on every call would mark every call as flagged in the fleet overview.
    if (this.#levelEnabled?.('debug') !== false) {
      this.#services.logger.debug(
        {
          usd: roundUsd(usd),
          input_tokens: inputTokens,
          output_tokens: outputTokens,
          ...cacheDetail,
          ...(estimated ? { tokens_counted: true } : {}),
        },
        'cost recorded',
      )
    }
  }

  /** Estimated USD of a request before it goes upstream, or undefined when the model's price is unknown. */
  estimate(exchange: Exchange): number | undefined {
    const inputTokens = this.#services.tokens.countRequest(exchange)
    return this.#pricing.cost(exchange.model, { inputTokens, outputTokens: this.#outputLimit(exchange) })
  }

  async describeAgent(agentId: string): Promise<Record<string, unknown>> {
    const now = this.#services.now()
    const [spend, held] = await Promise.all([
      this.#ledger.read(agentId, now, undefined),
      this.#holds.held(`a:${encodeURIComponent(agentId)}`, now),
    ])
    const { day, month } = periodsOf(now)
    const b = this.#settings.budgets
    const remaining = (limit: number | undefined, spent: number) =>
      limit === undefined ? null : roundUsd(Math.max(0, limit - spent))
    return {
      spend: {
        day,
        today_usd: roundUsd(spend.day),
        month,
        month_usd: roundUsd(spend.month),
        in_flight_usd: roundUsd(held),
        budgets: {
          agent_daily_usd: b.agent_daily_usd ?? null,
          agent_monthly_usd: b.agent_monthly_usd ?? null,
          session_usd: b.session_usd ?? null,
        },
        remaining: {
          agent_daily_usd: remaining(b.agent_daily_usd, spend.day),
          agent_monthly_usd: remaining(b.agent_monthly_usd, spend.month),
        },
      },
    }
  }

  async describeSession(session: SessionState): Promise<Record<string, unknown> | undefined> {
    const raw = await session.get(SESSION_USD)
    if (raw === undefined) return undefined
    const spent = toUsd(raw)
    const limit = this.#settings.budgets.session_usd
    return {
      spent_usd: roundUsd(spent),
      budget_usd: limit ?? null,
      remaining_usd: limit === undefined ? null : roundUsd(Math.max(0, limit - spent)),
    }
  }

  /** The first budget the call would go over: spent so far plus the estimate above the limit. */
  #overrun(
    spend: Spend,
    held: { agent: number; session: number },
    estimate: number,
    now: number,
  ): Overrun | undefined {
    const b = this.#settings.budgets
    const renew = secondsToRenewal(now)
    const checks: [BudgetName, number | undefined, number | undefined, number, number | undefined][] = [
      ['session_usd', b.session_usd, spend.session, held.session, undefined],
      ['agent_daily_usd', b.agent_daily_usd, spend.day, held.agent, renew.day],
      ['agent_monthly_usd', b.agent_monthly_usd, spend.month, held.agent, renew.month],
    ]
    for (const [budget, limit, spent, inFlight, retryAfterS] of checks) {
      if (limit === undefined || spent === undefined) continue
      // A budget already used up refuses even a call whose price is unknown (estimate 0).
      if (spent + inFlight + estimate > limit || spent >= limit) {
        return {
          budget,
          limit,
          spent,
          held: inFlight,
          estimate,
          ...(retryAfterS === undefined ? {} : { retryAfterS }),
        }
      }
    }
    return undefined
  }

  /** Hold scopes of a call: the agent when a daily or monthly budget is set, the session when a session budget is. */
  #holdScopes(
    agentId: string,
    session: SessionState | undefined,
  ): { keys: string[]; agent: number; session: number } {
    const b = this.#settings.budgets
    const keys: string[] = []
    let agent = -1
    let sessionIndex = -1
    if (b.agent_daily_usd !== undefined || b.agent_monthly_usd !== undefined) {
      agent = keys.push(`a:${encodeURIComponent(agentId)}`) - 1
    }
    if (b.session_usd !== undefined && session) sessionIndex = keys.push(`s:${session.key}`) - 1
    return { keys, agent, session: sessionIndex }
  }

  /** The most output tokens the request allows, or the setting's default. */
  #outputLimit(exchange: Exchange): number {
    // The read-only view (hosts before core 0.3.4: the body): taking the writable body makes the host re-serialise it.
    const body = exchange.bodyView ?? exchange.body
    for (const field of ['max_completion_tokens', 'max_tokens']) {
      const value = body[field]
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value
    }
    return this.#settings.default_output_tokens
  }

  #countAnswer(answer: Answer, model: string): number {
    let tokens = 0
    for (const part of answer.message.parts) tokens += this.#services.tokens.count(part.text, model)
    return tokens
  }
}
