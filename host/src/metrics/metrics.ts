import type { StepCounter, StepGauge, StepMetrics } from '@gov/core'
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { CALL_PHASES, type PhaseTimers } from '../gateway/phase-clock.js'
import { type HistogramChild, LeanHistogram } from './lean-histogram.js'

/** A counter's label child on the call path: `inc` adds to a number; {@link flush} passes it to prom-client. */
export class CounterChild {
  #pending = 0

  constructor(private readonly target: { inc(value?: number): void }) {}

  inc(value = 1): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`)
    if (value < 0) throw new Error('It is not possible to decrease a counter')
    this.#pending += value
  }

  flush(): void {
    const pending = this.#pending
    if (pending === 0) return
    this.#pending = 0
    this.target.inc(pending)
  }
}

/**
 * The Prometheus registry of one gateway: the spec's key metrics, per-step and
 * upstream latency histograms, and counters that steps register through
 * `StepServices.metrics`. One registry per gateway instance (tests run several).
 */
export class GovMetrics implements StepMetrics {
  readonly registry = new Registry()
  readonly httpRequests: Counter<'method' | 'path' | 'status'>
  readonly pipelineBlocks: Counter<'step' | 'code'>
  readonly piiDetections: Counter<'type'>
  readonly capabilityTokens: Counter<'result'>
  readonly activeAgents: Gauge
  readonly stepDuration: LeanHistogram<'step' | 'phase'>
  readonly upstreamDuration: LeanHistogram<'provider' | 'status'>
  readonly requestDuration: LeanHistogram<'vendor' | 'outcome'>
  readonly phaseDuration: LeanHistogram<'phase'>
  /** `gov_phase_duration_seconds` children by phase index (gateway/phase-clock.ts), created once. */
  readonly phaseTimers: PhaseTimers
  /**
   * Buffered label children of the hot-path counters by their joined label
   * values: prom-client hashes and validates a labels object on every `inc`,
   * also through a `labels()` child (~4 k instructions per call each); these
   * add to a number and hand it to prom-client when the counter is collected.
   */
  readonly #children = new Map<object, Map<string, CounterChild>>()
  readonly #stepCounters = new Map<string, Counter<string>>()
  readonly #stepGauges = new Map<string, Gauge<string>>()

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const registers = [this.registry]
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'gov_process_' })
    // `collect` runs before every read of a counter (exposition, `get()`): the buffered children's counts join it there.
    const flushOnCollect = { collect: () => this.#flushChildren() }
    this.httpRequests = new Counter({
      name: 'gov_http_requests_total',
      help: 'HTTP requests, by method, route path and status',
      labelNames: ['method', 'path', 'status'],
      registers,
      ...flushOnCollect,
    })
    this.pipelineBlocks = new Counter({
      name: 'gov_pipeline_blocks_total',
      help: 'Calls blocked by the governance pipeline, by step and reason code',
      labelNames: ['step', 'code'],
      registers,
    })
    this.piiDetections = new Counter({
      name: 'gov_pii_detections_total',
      help: 'PII detections, by type',
      labelNames: ['type'],
      registers,
    })
    this.#stepCounters.set('gov_pii_detections_total', this.piiDetections)
    this.capabilityTokens = new Counter({
      name: 'gov_capability_tokens_total',
      help: 'Capability tokens minted, denied and expired',
      labelNames: ['result'],
      registers,
      ...flushOnCollect,
    })
    this.activeAgents = new Gauge({
      name: 'gov_active_agents',
      help: 'Agents that made a call in the last 5 minutes',
      registers,
    })
    this.stepDuration = new LeanHistogram(
      'gov_step_duration_seconds',
      'Time spent in one step hook, by step and phase',
      ['step', 'phase'],
      [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      this.registry,
    )
    this.upstreamDuration = new LeanHistogram(
      'gov_upstream_duration_seconds',
      'Upstream provider call time, by provider and status',
      ['provider', 'status'],
      [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      this.registry,
    )
    this.requestDuration = new LeanHistogram(
      'gov_request_duration_seconds',
      'Gateway call time including upstream, by vendor and outcome',
      ['vendor', 'outcome'],
      [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      this.registry,
    )
    this.phaseDuration = new LeanHistogram(
      'gov_phase_duration_seconds',
      'Wall time of each phase of the request walk (auth, policy, parse, route, request_steps, upstream, response_steps, token, audit, write)',
      ['phase'],
      [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10, 60],
      this.registry,
    )
    this.phaseTimers = CALL_PHASES.map((phase) => this.phaseDuration.child(phase))
  }

  /** `gov_step_duration_seconds{step, phase}`, its child created once. */
  stepTimer(step: string, phase: string): HistogramChild {
    return this.stepDuration.child(step, phase)
  }

  /** `gov_upstream_duration_seconds{provider, status}`, its child created once. */
  upstreamTimer(provider: string, status: string): HistogramChild {
    return this.upstreamDuration.child(provider, status)
  }

  /** `gov_request_duration_seconds{vendor, outcome}`, its child created once. */
  requestTimer(vendor: string, outcome: string): HistogramChild {
    return this.requestDuration.child(vendor, outcome)
  }

  /** `gov_http_requests_total{method, path, status}` (path is the route pattern), its child created once. */
  httpRequest(method: string, path: string, status: string): CounterChild {
    return this.#child(this.httpRequests, `${method}\u0000${path}\u0000${status}`, [method, path, status])
  }

  /** `gov_capability_tokens_total{result}`, its child created once. */
  tokenResult(result: string): CounterChild {
    return this.#child(this.capabilityTokens, result, [result])
  }

  /** The buffered child of `counter` for label values in its `labelNames` order (bounded sets only). */
  #child(counter: Counter<string>, key: string, values: readonly string[]): CounterChild {
    let children = this.#children.get(counter)
    if (!children) {
      children = new Map()
      this.#children.set(counter, children)
    }
    let child = children.get(key)
    if (child === undefined) {
      child = new CounterChild(counter.labels(...values))
      children.set(key, child)
    }
    return child
  }

  /** Hand every buffered count to prom-client (before a counter is read). */
  #flushChildren(): void {
    for (const children of this.#children.values()) for (const child of children.values()) child.flush()
  }

  /** Register (or fetch) a counter for a step. Names must start with `gov_`. */
  counter(name: string, help: string, labelNames: readonly string[] = []): StepCounter {
    if (!/^gov_[a-z0-9_]+$/.test(name)) throw new Error(`step metric name must match gov_[a-z0-9_]+: ${name}`)
    let counter = this.#stepCounters.get(name)
    if (!counter) {
      counter = new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] })
      this.#stepCounters.set(name, counter)
    }
    const c = counter
    return {
      inc(labels = {}, value = 1) {
        c.inc(labels, value)
      },
    }
  }

  /** Register (or fetch) a gauge for a step. Names must start with `gov_`. */
  gauge(name: string, help: string, labelNames: readonly string[] = []): StepGauge {
    if (!/^gov_[a-z0-9_]+$/.test(name)) throw new Error(`step metric name must match gov_[a-z0-9_]+: ${name}`)
    let gauge = this.#stepGauges.get(name)
    if (!gauge) {
      gauge = new Gauge({ name, help, labelNames: [...labelNames], registers: [this.registry] })
      this.#stepGauges.set(name, gauge)
    }
    const g = gauge
    return {
      set(labels, value) {
        g.set(labels, value)
      },
    }
  }

  /** The exposition text for `/metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
