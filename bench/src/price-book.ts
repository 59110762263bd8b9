/**
 * What the host's price book (`GenAiPriceBook.cost`, the price track_cost's
 * outcome hook asks for on every call) costs per call, CPU µs (user + system,
 * `process.cpuUsage`), medians of alternating rounds, for one or more host
 * builds side by side, and genai-prices' own `calcPrice` for reference:
 *
 *   node --expose-gc bench/dist/src/price-book.js \
 *     --builds before=bench/results/baseline/host/dist/src,after=host/dist/src
 *
 * Rows: a flat-priced model (gpt-4o-mini), one with cached input tokens
 * (claude-sonnet-4-5), a tiered one past its tier start (gemini-2.5-pro), and
 * one with time-of-day prices (deepseek-chat). Usages vary on every call.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { calcPrice } from '@pydantic/genai-prices'
import { buildsOptions, buildsTable } from './builds-table.js'

const { builds: BUILDS, rounds: ROUNDS, n: N } = buildsOptions()

interface Usage {
  inputTokens: number
  outputTokens: number
  cachedInputTokens?: number
}
type Cost = (model: string, usage: Usage, provider?: string) => number | undefined

interface Row {
  readonly label: string
  readonly model: string
  readonly provider: string
  readonly usage: (i: number) => Usage
}

const ROWS: readonly Row[] = [
  {
    label: 'gpt-4o-mini (flat)',
    model: 'gpt-4o-mini',
    provider: 'openai',
    usage: (i) => ({ inputTokens: 900 + (i % 300), outputTokens: 100 + (i % 50) }),
  },
  {
    label: 'claude-sonnet-4-5 (cached input)',
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    usage: (i) => ({
      inputTokens: 5_000 + (i % 700),
      outputTokens: 300 + (i % 90),
      cachedInputTokens: 4_096,
    }),
  },
  {
    label: 'gemini-2.5-pro (tiered, past 200k)',
    model: 'gemini-2.5-pro',
    provider: 'google',
    usage: (i) => ({ inputTokens: 210_000 + i, outputTokens: 1_000 + (i % 77) }),
  },
  {
    label: 'deepseek-chat (time-of-day prices)',
    model: 'deepseek-chat',
    provider: 'deepseek',
    usage: (i) => ({
      inputTokens: 2_000 + (i % 500),
      outputTokens: 200 + (i % 40),
      cachedInputTokens: 1_024,
    }),
  },
]

const collect = (globalThis as { gc?: () => void }).gc ?? (() => {})

function referenceCost(): Cost {
  return (model, usage, provider) => {
    const result = calcPrice(
      {
        input_tokens: usage.inputTokens,
        output_tokens: usage.outputTokens,
        ...(usage.cachedInputTokens ? { cache_read_tokens: usage.cachedInputTokens } : {}),
      },
      model,
      { providerId: provider },
    )
    return result ? Number(result.total_price) : undefined
  }
}

async function loadBuild(dir: string): Promise<Cost> {
  const mod = (await import(pathToFileURL(resolve(dir, 'usage/price-book.js')).href)) as {
    GenAiPriceBook: new () => { cost: Cost }
  }
  const book = new mod.GenAiPriceBook()
  return (model, usage, provider) => book.cost(model, usage, provider)
}

function cpuPerCall(cost: Cost, row: Row): { us: number; sum: number } {
  const usages = Array.from({ length: N }, (_, i) => row.usage(i))
  collect()
  let sum = 0
  const before = process.cpuUsage()
  for (const usage of usages) sum += cost(row.model, usage, row.provider) ?? Number.NaN
  const spent = process.cpuUsage(before)
  return { us: (spent.user + spent.system) / N, sum }
}

async function main(): Promise<void> {
  const builds: { label: string; cost: Cost }[] = [{ label: 'calcPrice (uncached)', cost: referenceCost() }]
  for (const [label, dir] of BUILDS) {
    builds.push({ label, cost: await loadBuild(dir) })
  }
  const results = new Map<string, Map<string, number[]>>()
  for (let r = -1; r < ROUNDS; r++) {
    for (const build of r % 2 ? [...builds].reverse() : builds) {
      for (const row of ROWS) {
        const { us, sum } = cpuPerCall(build.cost, row)
        if (!Number.isFinite(sum)) throw new Error(`${build.label}: ${row.model} has no price`)
        if (r < 0) continue
        const byBuild = results.get(row.label) ?? new Map<string, number[]>()
        results.set(row.label, byBuild)
        byBuild.set(build.label, [...(byBuild.get(build.label) ?? []), us])
      }
    }
  }
  // Every build must answer what calcPrice answers.
  for (const row of ROWS) {
    for (let i = 0; i < 100; i++) {
      const usage = row.usage(i * 37)
      const want = builds[0]?.cost(row.model, usage, row.provider)
      for (const build of builds.slice(1)) {
        const got = build.cost(row.model, usage, row.provider)
        if (!Object.is(got, want)) throw new Error(`${build.label} ${row.model}: ${got} != ${want}`)
      }
    }
  }
  const labels = builds.map((b) => b.label)
  process.stdout.write(
    buildsTable(
      `# Price book, CPU µs per cost() call (median of ${ROUNDS} rounds × ${N} calls)`,
      labels,
      results,
      2,
    ),
  )
}

await main()
