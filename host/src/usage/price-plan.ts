/**
 * Prepared prices: what genai-prices' `calcPrice` computes for gov's usage
 * (input, output and cached-input tokens), with everything that depends only
 * on the price entry done once per entry instead of on every call.
 *
 * `calcPrice` checks a usage against its unit model on every call: it maps the
 * entry's price keys to units, checks that every unit's ancestors and joins
 * are priced, sorts the units by specificity, and takes each unit's "leaf"
 * value (its usage minus the usage of its more specific priced units) before
 * multiplying. For gov's usage most of that is a fixed answer per entry:
 *
 * - input_tokens' leaf is `input - cached` when `cache_read_mtok` is priced
 *   (it is the only more specific unit that can be non-zero), else `input`;
 *   an `input` below `cached` is refused (calcPrice throws: no price);
 * - cache_read_tokens' leaf is `cached`, output_tokens' is `output`;
 * - `requests` counts 1;
 * - every other unit (audio, images, cache writes, reasoning, searches…) has
 *   no usage in gov's calls and no non-zero descendant: its leaf is 0 and it
 *   adds 0.
 *
 * The remaining terms are multiplied exactly as `calcPrice` does (`price *
 * leaf / per`; tiered: `tier * leaf / 1e6 * 1e6 / per`, the tier chosen by
 * the input tokens), summed per direction in the entry's key order, and the
 * total is `input + output + other`: the same operations in the same order,
 * so the same double to the last bit.
 *
 * A plan is made only when that holds by construction: every price key is one
 * of the units listed here, the usage numbers are non-negative integers at
 * most 2^40 (no rounding in the leaf subtraction, no tolerance case), and the
 * plan gives `calcPrice`'s own answers on probe usages when it is made (which
 * also finds entries `calcPrice` always refuses, e.g. a missing join price).
 * Anything else goes to `calcPrice` (price-book.ts).
 */
import { calcPrice, type ModelPrice, type Provider } from '@pydantic/genai-prices'

/** Largest token count priced here; above it (or for fractions) calcPrice answers. */
const MAX_TOKENS = 2 ** 40

/** Which usage number a term multiplies. */
enum Leaf {
  /** input tokens, minus cached input tokens when the entry prices them. */
  Input = 0,
  Cached = 1,
  Output = 2,
  /** `requests`: one per call. */
  One = 3,
}

enum Bucket {
  Input = 0,
  Output = 1,
  Other = 2,
}

/** The units whose leaf can be non-zero for gov's usage, by price key. */
const LIVE: Readonly<Record<string, { leaf: Leaf; bucket: Bucket; per: number }>> = {
  input_mtok: { leaf: Leaf.Input, bucket: Bucket.Input, per: 1e6 },
  cache_read_mtok: { leaf: Leaf.Cached, bucket: Bucket.Input, per: 1e6 },
  output_mtok: { leaf: Leaf.Output, bucket: Bucket.Output, per: 1e6 },
  requests_kcount: { leaf: Leaf.One, bucket: Bucket.Other, per: 1e3 },
}

/**
 * Every other price key of genai-prices' unit registry (0.1.8): units gov's
 * usage never has, none an ancestor of input, output or cached-input tokens,
 * so each adds 0. A key not listed here (a unit a later genai-prices adds, or a
 * key it does not know and warns about) means no plan.
 */
export const ZERO_PRICE_KEYS: ReadonlySet<string> = new Set([
  'audio_hours',
  'cache_audio_read_mtok',
  'cache_audio_write_1h_mtok',
  'cache_audio_write_5m_mtok',
  'cache_audio_write_mtok',
  'cache_image_read_mtok',
  'cache_image_write_1h_mtok',
  'cache_image_write_5m_mtok',
  'cache_image_write_mtok',
  'cache_text_read_mtok',
  'cache_text_write_1h_mtok',
  'cache_text_write_5m_mtok',
  'cache_text_write_mtok',
  'cache_video_read_mtok',
  'cache_video_write_1h_mtok',
  'cache_video_write_5m_mtok',
  'cache_video_write_mtok',
  'cache_write_1h_mtok',
  'cache_write_5m_mtok',
  'cache_write_mtok',
  'code_executions_kcount',
  'input_annotated_document_kpages',
  'input_audio_hours',
  'input_audio_mtok',
  'input_audio_tool_mtok',
  'input_document_kpages',
  'input_gpixels',
  'input_image_mtok',
  'input_image_tool_mtok',
  'input_mchars',
  'input_text_messages_kcount',
  'input_text_mtok',
  'input_text_tool_mtok',
  'input_tool_mtok',
  'input_video_mtok',
  'input_video_tool_mtok',
  'output_audio_citation_mtok',
  'output_audio_hours',
  'output_audio_mtok',
  'output_audio_reasoning_mtok',
  'output_citation_mtok',
  'output_image_citation_mtok',
  'output_image_mtok',
  'output_image_reasoning_mtok',
  'output_reasoning_mtok',
  'output_text_citation_mtok',
  'output_text_mtok',
  'output_text_reasoning_mtok',
  'output_video_citation_mtok',
  'output_video_mtok',
  'output_video_reasoning_mtok',
  'rerank_searches_kcount',
  'social_searches_kcount',
  'storage_searches_kcount',
  'web_searches_kcount',
])

interface Tier {
  readonly start: number
  readonly price: number
}

interface Term {
  readonly leaf: Leaf
  readonly bucket: Bucket
  readonly per: number
  /** A flat price, or undefined when tiered. */
  readonly flat: number | undefined
  readonly base: number
  /** Tiers by start, as genai-prices sorts them. */
  readonly tiers: readonly Tier[]
}

/** Token counts of one call, as the price book hands them to calcPrice. */
export interface PlanUsage {
  readonly input: number
  readonly output: number
  /** Cached input tokens; 0 when none were reported (calcPrice is then given no cache_read_tokens). */
  readonly cached: number
}

/** One price entry, prepared. */
export class PricePlan {
  readonly #terms: readonly Term[]
  readonly #cachePriced: boolean

  private constructor(terms: readonly Term[]) {
    this.#terms = terms
    this.#cachePriced = terms.some((t) => t.leaf === Leaf.Cached)
  }

  /**
   * The plan of a price entry, `null` when calcPrice must price it (keys or
   * values this does not model), or `'refused'` when calcPrice refuses every
   * usage of it (an inconsistent entry).
   */
  static of(prices: ModelPrice): PricePlan | null | 'refused' {
    const terms: Term[] = []
    for (const [key, value] of Object.entries(prices) as [string, unknown][]) {
      if (value === undefined) continue
      const live = LIVE[key]
      if (!live) {
        if (ZERO_PRICE_KEYS.has(key)) continue
        return null
      }
      if (typeof value === 'number') {
        if (!(Number.isFinite(value) && value >= 0)) return null
        terms.push({ ...live, flat: value, base: 0, tiers: [] })
        continue
      }
      const tiered = value as { base?: unknown; tiers?: unknown }
      if (typeof tiered !== 'object' || tiered === null || !Array.isArray(tiered.tiers)) return null
      if (!isPrice(tiered.base)) return null
      const tiers: Tier[] = []
      for (const tier of tiered.tiers as { start?: unknown; price?: unknown }[]) {
        if (typeof tier !== 'object' || tier === null) return null
        if (typeof tier.start !== 'number' || !Number.isSafeInteger(tier.start) || tier.start < 0) return null
        if (!isPrice(tier.price)) return null
        tiers.push({ start: tier.start, price: tier.price })
      }
      tiers.sort((a, b) => a.start - b.start)
      terms.push({ ...live, flat: undefined, base: tiered.base, tiers })
    }
    const plan = new PricePlan(terms)
    // calcPrice's own answers: it refuses an inconsistent entry for every usage (zero included).
    for (const probe of PROBES) {
      let want: number | undefined
      try {
        want = Number(
          calcPrice(usageOf(probe), PROBE_MODEL, { provider: probeProvider(prices) })?.total_price,
        )
      } catch {
        if (probe === PROBES[0]) return 'refused'
        want = undefined
      }
      if (!Object.is(plan.total(probe), want)) return null
    }
    return plan
  }

  /** True when `total` prices these numbers as calcPrice does (else ask calcPrice). */
  static covers(input: number, output: number, cached: number): boolean {
    return isCount(input) && isCount(output) && isCount(cached)
  }

  /** USD, exactly calcPrice's `total_price`; undefined where calcPrice throws. Needs {@link covers}. */
  total(usage: PlanUsage): number | undefined {
    const { input, output, cached } = usage
    let inputLeaf = input
    if (this.#cachePriced) {
      inputLeaf = input - cached
      if (inputLeaf < 0) return undefined
    }
    let inputPrice = 0
    let outputPrice = 0
    let otherPrice = 0
    for (const term of this.#terms) {
      const leaf =
        term.leaf === Leaf.Input
          ? inputLeaf
          : term.leaf === Leaf.Cached
            ? cached
            : term.leaf === Leaf.Output
              ? output
              : 1
      let price: number
      if (term.flat !== undefined) {
        price = (term.flat * leaf) / term.per
      } else {
        let unit = term.base
        for (const tier of term.tiers) if (input > tier.start) unit = tier.price
        price = ((leaf <= 0 ? 0 : (unit * leaf) / 1e6) * 1e6) / term.per
      }
      if (term.bucket === Bucket.Input) inputPrice += price
      else if (term.bucket === Bucket.Output) outputPrice += price
      else otherPrice += price
    }
    return inputPrice + outputPrice + otherPrice
  }
}

function isPrice(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

function isCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= MAX_TOKENS
}

/** calcPrice's usage for these numbers, as the price book builds it. */
export function usageOf(usage: PlanUsage): {
  input_tokens: number
  output_tokens: number
  cache_read_tokens?: number
} {
  return usage.cached
    ? { input_tokens: usage.input, output_tokens: usage.output, cache_read_tokens: usage.cached }
    : { input_tokens: usage.input, output_tokens: usage.output }
}

const PROBE_MODEL = 'gov-price-probe'

/** Zero first (an entry refused for it is refused for all), then tiers' boundaries crossed, cached or not. */
const PROBES: readonly PlanUsage[] = [
  { input: 0, output: 0, cached: 0 },
  { input: 1_234_567, output: 89_013, cached: 456_789 },
  { input: 200_001, output: 7, cached: 0 },
  { input: 31, output: 2_048, cached: 31 },
]

function probeProvider(prices: ModelPrice): Provider {
  return {
    id: 'gov-price-probe',
    name: 'gov price probe',
    api_pattern: 'gov-price-probe',
    models: [{ id: PROBE_MODEL, match: { equals: PROBE_MODEL }, prices }],
  } as Provider
}
