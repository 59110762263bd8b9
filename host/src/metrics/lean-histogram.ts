/**
 * A Prometheus histogram for the call path. prom-client's Histogram hashes the
 * labels object on every `observe`, also through a `labels()` child; with ~25
 * observations per governed call (phases, steps, upstream, request) that was
 * 2–3 % of gov's CPU. Here a child is a few numbers behind a label-value key,
 * created once; `observe` finds the bucket and adds. The registry reads it
 * through the same `get()` shape as prom-client's own metrics, so the
 * exposition text is the usual `_bucket{le}`, `_sum` and `_count` series.
 */
import type { Registry } from 'prom-client'

/** One label set's counts. */
export class HistogramChild {
  /** Non-cumulative count per bucket; the last slot is +Inf. */
  readonly counts: number[]
  sum = 0
  count = 0

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`)
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]!) i++
    this.counts[i]! += 1
    this.sum += value
    this.count += 1
  }
}

interface Sample {
  labels: Record<string, string | number>
  value: number
  metricName: string
}

export class LeanHistogram<L extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly #bounds: readonly number[]
  readonly #children = new Map<string, HistogramChild>()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    buckets: readonly number[],
    registry: Registry,
  ) {
    this.#bounds = [...buckets].sort((a, b) => a - b)
    registry.registerMetric(this as never)
  }

  /** The child of these label values (in `labelNames` order), created on first use. */
  child(...values: string[]): HistogramChild {
    const key = values.length === 1 ? values[0]! : values.join('\u0000')
    let child = this.#children.get(key)
    if (!child) {
      const labels: Record<string, string> = {}
      this.labelNames.forEach((name, i) => {
        labels[name] = values[i] ?? ''
      })
      child = new HistogramChild(this.#bounds, labels)
      this.#children.set(key, child)
    }
    return child
  }

  /** Observe with a labels object (tests, rare paths). */
  observe(labels: Readonly<Record<L, string>>, value: number): void {
    this.child(...this.labelNames.map((n) => labels[n])).observe(value)
  }

  reset(): void {
    this.#children.clear()
  }

  /** What prom-client's registry renders. */
  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = []
    for (const child of this.#children.values()) {
      let cumulative = 0
      this.#bounds.forEach((bound, i) => {
        cumulative += child.counts[i]!
        values.push({
          labels: { ...child.labels, le: bound },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        })
      })
      values.push(
        { labels: { ...child.labels, le: '+Inf' }, value: child.count, metricName: `${this.name}_bucket` },
        { labels: { ...child.labels }, value: child.sum, metricName: `${this.name}_sum` },
        { labels: { ...child.labels }, value: child.count, metricName: `${this.name}_count` },
      )
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}
