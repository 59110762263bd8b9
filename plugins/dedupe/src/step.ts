import type {
  HookContext,
  LeaderFlight,
  OutcomeContext,
  RequestContext,
  StepCounter,
  StepInstance,
  StepServices,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { isDeterministic, requestKey, StringDigests } from './request-key.js'
import type { DedupeSettings } from './settings.js'

/** The response header on answers that did not go upstream. */
export const DEDUPE_HEADER = 'x-gov-dedupe'
type Result = 'coalesced' | 'replayed'

/**
 * Bounds of a step's per-text digests of long strings (messages of the
 * conversations it keys): texts kept, and bytes (texts at 2 bytes a unit).
 */
export const DIGESTS_MAX = 8192
export const DIGESTS_MAX_BYTES = 16 * 1024 * 1024

interface CallState {
  key: string
  flight?: LeaderFlight
  store: boolean
}

/**
 * One `dedupe` step. In the request phase (last in the chain, so it keys on
 * the governed request) it answers a repeat from the stored answer, or joins
 * the flight of an identical request in flight and answers with its result.
 * The answer it shares is the provider's, as received (before response steps),
 * so every caller's own response steps govern it — PII placeholders restore to
 * each caller's own values, a refused answer is refused for each.
 */
export class DedupeStep implements StepInstance {
  readonly #counter: StepCounter
  /** Digests of long strings this instance keyed, per exact text. */
  readonly #digests = new StringDigests({ max: DIGESTS_MAX, maxBytes: DIGESTS_MAX_BYTES })

  constructor(
    private readonly settings: DedupeSettings,
    private readonly services: StepServices,
  ) {
    this.#counter = services.metrics.counter(
      'gov_dedupe_total',
      'Calls answered without going upstream, by result',
      ['result'],
    )
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const replay = this.#replays(ctx)
    if (!replay && !this.settings.coalesce) return Verdicts.continue()
    const key = requestKey(ctx.call, ctx.exchange, this.#digests)
    const state: CallState = { key, store: replay }
    ctx.state.set('dedupe', state)
    if (replay) {
      const stored = await this.services.kv.get(`answer:${key}`)
      if (stored !== undefined) return this.#answer(ctx, stored, 'replayed')
    }
    if (!this.settings.coalesce) return Verdicts.continue()
    const flight = await this.services.flights.join(key, this.settings.wait_s * 1000)
    if (flight.role === 'leader') {
      state.flight = flight
      return Verdicts.continue()
    }
    const shared = await flight.wait(this.settings.wait_s * 1000)
    // The leader failed or took too long: this call goes upstream itself.
    if (shared === undefined) return Verdicts.continue()
    state.store = false
    return this.#answer(ctx, shared, 'coalesced')
  }

  /** Share the provider's answer with the waiting calls, and keep it for replay. */
  async onUpstreamOutcome(ctx: OutcomeContext): Promise<void> {
    const state = ctx.state.get('dedupe') as CallState | undefined
    if (!state) return
    const flight = state.flight
    state.flight = undefined
    // Nobody would read the answer's JSON: not kept for replay, and no follower waits (an in-process flight
    // can tell; ending it without a result is then the same as completing it).
    if (!state.store && (flight === undefined || flight.hasFollowers?.() === false)) {
      await flight?.abandon()
      return
    }
    const body = ctx.outcome.kind === 'success' ? JSON.stringify(ctx.outcome.answer.body) : undefined
    if (body === undefined || Buffer.byteLength(body) > this.settings.max_answer_bytes) {
      await flight?.abandon()
      return
    }
    await flight?.complete(body)
    if (state.store) {
      state.store = false
      await this.services.kv.set(`answer:${state.key}`, body, this.settings.window_s * 1000)
    }
  }

  #replays(ctx: HookContext): boolean {
    const mode = this.settings.replay
    return mode === 'always' || (mode === 'deterministic' && isDeterministic(ctx.exchange))
  }

  #answer(ctx: RequestContext, body: string, result: Result): Verdict {
    ctx.report({ type: 'duplicate_request', score: 1, level: 'public', detail: { result } })
    this.#counter.inc({ result })
    return Verdicts.respond({ body: JSON.parse(body) }, { [DEDUPE_HEADER]: result })
  }
}
