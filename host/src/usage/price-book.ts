import type { PriceBook, PricedUsage } from '@gov/core'
import { calcPrice, type ModelInfo, type ModelPrice, type Provider, type Usage } from '@pydantic/genai-prices'
import { LRUCache } from 'lru-cache'
import { PricePlan } from './price-plan.js'

/**
 * gov's usage as priced here. `inputTokens` is the total input count;
 * `cachedInputTokens` and `cacheWriteInputTokens` are the parts of it read from
 * and written to the prompt cache (genai-prices' `input_tokens`,
 * `cache_read_tokens`, `cache_write_tokens`: its input_tokens is the total too).
 * (core's `PricedUsage`, cache writes included since core 0.3.1).
 */
export type BookUsage = PricedUsage

/** Provider ids of @pydantic/genai-prices per gov provider name. */
const PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'anthropic-openai': 'anthropic',
}

/** Cached answer for a model no provider data knows. */
const UNKNOWN = Symbol('unknown model')

/** Most (provider, model) names whose resolution is kept; model names come from callers. */
const RESOLUTIONS_MAX = 4_096

/**
 * Model prices from @pydantic/genai-prices' bundled data (never updated over
 * the network: gov makes no call to a hosted service, and never calls
 * `updatePrices`). Unknown models cost `undefined`, and steps decide what that
 * means.
 *
 * A `calcPrice` call finds the model (matching the name against every model
 * rule of the provider and its fallback providers), chooses the price entry
 * that applies at the call's time, and checks the usage against its unit
 * model before multiplying. Here the model found is kept per (provider, model
 * name) in a bounded LRU; the entry is chosen as calcPrice chooses it (start
 * dates, time-of-day windows, parsed once per model); and the entry's prices
 * are prepared once ({@link PricePlan}: 23-28 µs CPU per call became about
 * 1 µs). Whatever the plan does not model (fractional or huge token counts,
 * price keys it does not know, `litellm` names) is priced by `calcPrice`
 * itself. The answer is the one an uncached `calcPrice` call gives, exactly:
 * tested over every model of every bundled provider, many usages and times.
 */
export class GenAiPriceBook implements PriceBook {
  readonly #now: () => Date
  readonly #resolved = new LRUCache<string, Resolved | typeof UNKNOWN>({ max: RESOLUTIONS_MAX })
  readonly #plans = new WeakMap<ModelPrice, PricePlan | null | 'refused'>()

  /** `now` gives the time prices are chosen for (tests move it). */
  constructor(now: () => Date = () => new Date()) {
    this.#now = now
  }

  cost(model: string, usage: BookUsage, provider?: string): number | undefined {
    const providerId = provider
      ? (PROVIDERS[provider] ?? provider)
      : /^claude/i.test(model)
        ? 'anthropic'
        : 'openai'
    const timestamp = this.#now()
    // genai-prices rewrites `litellm` model names ("provider/model"); keep its own path for those.
    if (providerId.toLowerCase() === 'litellm')
      return total(() => calcPrice(usageFor(usage), model, { providerId, timestamp }))
    const key = `${providerId}\n${model}`
    const known = this.#resolved.get(key)
    if (known === UNKNOWN) return undefined
    if (known) return this.#price(known, model, usage, timestamp)
    try {
      const result = calcPrice(usageFor(usage), model, { providerId, timestamp })
      if (!result) {
        this.#resolved.set(key, UNKNOWN)
        return undefined
      }
      // The model found, alone: calcPrice finds it again at once (same name, same match rule).
      this.#resolved.set(key, {
        provider: { ...result.provider, models: [result.model], fallback_model_providers: undefined },
        entries: entriesOf(result.model),
      })
      return Number(result.total_price)
    } catch {
      // Bad usage numbers or price data: nothing is learnt about the model.
      return undefined
    }
  }

  #price(known: Resolved, model: string, usage: BookUsage, timestamp: Date): number | undefined {
    // Cache writes are not modelled by the plan: calcPrice prices them.
    if (usage.cacheWriteInputTokens)
      return total(() => calcPrice(usageFor(usage), model, { provider: known.provider, timestamp }))
    const input = usage.inputTokens
    const output = usage.outputTokens
    // calcPrice is given cache_read_tokens only when the count is truthy (0 and NaN are left out).
    const cached = usage.cachedInputTokens ? usage.cachedInputTokens : 0
    const prices =
      known.entries && PricePlan.covers(input, output, cached) ? choose(known.entries, timestamp) : undefined
    if (prices) {
      let plan = this.#plans.get(prices)
      if (plan === undefined) {
        plan = PricePlan.of(prices)
        this.#plans.set(prices, plan)
      }
      if (plan === 'refused') return undefined
      if (plan) return plan.total({ input, output, cached })
    }
    return total(() => calcPrice(usageFor(usage), model, { provider: known.provider, timestamp }))
  }
}

/** A model found once: the one-model provider calcPrice is handed, and its price entries by time. */
interface Resolved {
  readonly provider: Provider
  /** undefined when a constraint is one calcPrice would refuse or that is not understood here. */
  readonly entries: Entries | undefined
}

type Entries =
  | { readonly kind: 'flat'; readonly prices: ModelPrice }
  | { readonly kind: 'conditional'; readonly list: readonly Conditional[] }

type Conditional =
  | { readonly kind: 'always'; readonly prices: ModelPrice }
  | { readonly kind: 'from'; readonly startMs: number; readonly prices: ModelPrice }
  | { readonly kind: 'daily'; readonly start: number; readonly end: number; readonly prices: ModelPrice }

/** A model's price entries with their constraints parsed once, as calcPrice reads them. */
function entriesOf(model: ModelInfo): Entries | undefined {
  if (!Array.isArray(model.prices)) return { kind: 'flat', prices: model.prices }
  const list: Conditional[] = []
  for (const entry of model.prices) {
    const constraint = entry.constraint as
      | { type?: string; start_date?: string; start_time?: string; end_time?: string }
      | undefined
    if (constraint === undefined) list.push({ kind: 'always', prices: entry.prices })
    else if (constraint.type === 'start_date' && typeof constraint.start_date === 'string')
      list.push({ kind: 'from', startMs: new Date(constraint.start_date).getTime(), prices: entry.prices })
    else if (constraint.type === 'time_of_date') {
      const start = secondsOfDay(constraint.start_time)
      const end = secondsOfDay(constraint.end_time)
      if (start === undefined || end === undefined) return undefined
      list.push({ kind: 'daily', start, end, prices: entry.prices })
    } else return undefined
  }
  if (list.length === 0) return undefined
  return { kind: 'conditional', list }
}

/** The entry calcPrice uses at `at`: the last one whose constraint holds, else the first. */
function choose(entries: Entries, at: Date): ModelPrice | undefined {
  if (entries.kind === 'flat') return entries.prices
  const ms = at.getTime()
  if (Number.isNaN(ms)) return undefined
  const list = entries.list
  let seconds: number | undefined
  for (let i = list.length - 1; i >= 0; i--) {
    const entry = list[i] as Conditional
    if (entry.kind === 'always') return entry.prices
    if (entry.kind === 'from') {
      if (ms >= entry.startMs) return entry.prices
      continue
    }
    seconds ??=
      at.getUTCHours() * 3600 + at.getUTCMinutes() * 60 + at.getUTCSeconds() + at.getUTCMilliseconds() / 1e3
    if (entry.end < entry.start) {
      if (seconds >= entry.start || seconds < entry.end) return entry.prices
    } else if (seconds >= entry.start && seconds < entry.end) return entry.prices
  }
  return (list[0] as Conditional).prices
}

/** Seconds after midnight UTC of a `HH:MM:SS[.fff](Z|±HH:MM)` time, as genai-prices reads it; undefined when it refuses it. */
function secondsOfDay(text: string | undefined): number | undefined {
  if (typeof text !== 'string') return undefined
  const m = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|([+-])(\d{2}):(\d{2}))$/.exec(text)
  if (!m) return undefined
  const [, hh, mm, ss, fraction = '', zone, sign, zh = '00', zm = '00'] = m as unknown as string[]
  const hours = Number(hh)
  const minutes = Number(mm)
  const seconds = Number(ss)
  const offset = (Number(zh) * 60 + Number(zm)) * 60
  if (hours > 23 || minutes > 59 || seconds > 59 || (zh as string) > '23' || (zm as string) > '59')
    return undefined
  const local = hours * 3600 + minutes * 60 + seconds + +`0.${fraction}`
  const shift = zone === 'Z' ? 0 : sign === '+' ? offset : -offset
  return (local - shift + 86400) % 86400
}

/** calcPrice's usage for gov's counts (cache_read_tokens, cache_write_tokens and cache_write_1h_tokens only when truthy). */
function usageFor(usage: BookUsage): Usage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cachedInputTokens ? { cache_read_tokens: usage.cachedInputTokens } : {}),
    ...(usage.cacheWriteInputTokens ? { cache_write_tokens: usage.cacheWriteInputTokens } : {}),
    // genai-prices prices this part of the writes at `cache_write_1h_mtok`, the rest at `cache_write_mtok`.
    ...(usage.cacheWriteInputTokens && usage.cacheWrite1hInputTokens
      ? { cache_write_1h_tokens: usage.cacheWrite1hInputTokens }
      : {}),
  }
}

function total(price: () => ReturnType<typeof calcPrice>): number | undefined {
  try {
    const result = price()
    return result ? Number(result.total_price) : undefined
  } catch {
    return undefined
  }
}
