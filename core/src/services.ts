import type { Exchange } from './exchange.js'
import type { Flights } from './flight.js'
import type { SessionOptions, SessionStore } from './session.js'

/**
 * Capabilities the host gives a step. Steps never import the host; everything
 * they need from outside arrives here, so a step runs the same embedded or
 * scaled out (a Redis-backed {@link KeyValueStore} is shared by all replicas).
 */

/** A structured logger (pino-compatible subset). Never log raw prompt text or secrets. */
export interface StepLogger {
  debug(obj: Record<string, unknown> | string, msg?: string): void
  info(obj: Record<string, unknown> | string, msg?: string): void
  warn(obj: Record<string, unknown> | string, msg?: string): void
  error(obj: Record<string, unknown> | string, msg?: string): void
}

/**
 * Shared key-value state: sessions, taint, counters, budgets, caches. Embedded
 * it lives in process; scaled out it is Redis, and every operation is atomic.
 * Keys are namespaced per step by the host.
 */
export interface KeyValueStore {
  get(key: string): Promise<string | undefined>
  /** Set a value, optionally expiring after `ttlMs`. */
  set(key: string, value: string, ttlMs?: number): Promise<void>
  /** Set only if absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>
  /** Atomically add `by` (default 1) and return the new value; `ttlMs` applies when the key is created. */
  incr(key: string, by?: number, ttlMs?: number): Promise<number>
  del(key: string): Promise<void>
}

/** A counter a step may register; the host backs it with prom-client. */
export interface StepCounter {
  inc(labels?: Record<string, string>, value?: number): void
}

/** A gauge a step may register. */
export interface StepGauge {
  set(labels: Record<string, string>, value: number): void
}

/** Metrics a step may register. Names must start with `gov_`. Registering twice returns the same metric. */
export interface StepMetrics {
  counter(name: string, help: string, labelNames?: readonly string[]): StepCounter
  gauge(name: string, help: string, labelNames?: readonly string[]): StepGauge
}

/** Token counts, so steps do not each bundle a tokenizer. */
export interface TokenCounter {
  /** Tokens of `text` for `model`'s tokenizer (an OpenAI tokenizer approximates other vendors). */
  count(text: string, model: string): number
  /** Estimated input tokens of a request: every message text, tool definitions and per-message overhead. */
  countRequest(exchange: Exchange): number
}

/** Token usage to price. */
export interface PricedUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  /** Input tokens served from the provider's prompt cache, when reported. */
  readonly cachedInputTokens?: number
  /** Input tokens written to the provider's prompt cache (Anthropic's `cache_creation_input_tokens`), when reported. */
  readonly cacheWriteInputTokens?: number
  /** Part of `cacheWriteInputTokens` written to the one-hour cache (Anthropic `cache_creation.ephemeral_1h_input_tokens`), when reported. */
  readonly cacheWrite1hInputTokens?: number
}

/** Model prices, so steps do not each bundle a table. */
export interface PriceBook {
  /** Cost in USD of `usage` on `model`, or undefined when the model's price is unknown. */
  cost(model: string, usage: PricedUsage, provider?: string): number | undefined
}

/** Everything the host hands to {@link StepPlugin.create}. */
export interface StepServices {
  /** The step's name, as pipelines use it. */
  readonly stepName: string
  readonly logger: StepLogger
  /** The step's own slice of the key-value store (keys are prefixed per step). */
  readonly kv: KeyValueStore
  readonly metrics: StepMetrics
  /** Per-(agent, session) state with a sliding TTL; see {@link SessionStore}. */
  sessions(options?: SessionOptions): SessionStore
  /** Single flight across calls and replicas; see {@link Flights}. */
  readonly flights: Flights
  readonly tokens: TokenCounter
  readonly prices: PriceBook
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now(): number
}
