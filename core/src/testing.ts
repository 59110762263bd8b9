/**
 * Test helpers for step authors: build an Exchange, an Answer and hook
 * contexts from plain text, and an in-memory key-value store, so a step's
 * hooks can be called directly. Import from `@gov/core/testing`.
 */
import type {
  Answer,
  Exchange,
  Message,
  MessageSource,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  ToolResult,
  Usage,
} from './exchange.js'
import { TextPart } from './exchange.js'
import type { Finding, FindingInput, Phase } from './finding.js'
import type { Flight, Flights } from './flight.js'
import type {
  KeyValueStore,
  PriceBook,
  StepCounter,
  StepLogger,
  StepServices,
  TokenCounter,
} from './services.js'
import type { SessionOptions, SessionState, SessionStore } from './session.js'
import type {
  CallInfo,
  OutcomeContext,
  RequestContext,
  ResponseContext,
  ToolCallContext,
  UpstreamOutcome,
} from './step.js'

/** A message for {@link makeExchange}. */
export interface FakeMessage {
  source: MessageSource
  text?: string
  /** Tool calls an assistant message made. */
  toolCalls?: { id: string; name: string; arguments: string }[]
  /** Tool results (source `tool`). */
  toolResults?: { toolCallId: string; text: string }[]
}

function buildMessage(index: number, m: FakeMessage): Message {
  const holder: Record<string, unknown> = { role: m.source, content: m.text ?? '' }
  const parts: TextPart[] = []
  if (m.text !== undefined) {
    parts.push(
      new TextPart({
        id: `messages[${index}].content`,
        messageIndex: index,
        source: m.source,
        kind: 'text',
        holder,
        key: 'content',
      }),
    )
  }
  const toolCalls: ToolCall[] = (m.toolCalls ?? []).map((c, i) => {
    const h: Record<string, unknown> = { ...c }
    const part = new TextPart({
      id: `messages[${index}].tool_calls[${i}].arguments`,
      messageIndex: index,
      source: m.source,
      kind: 'tool_arguments',
      holder: h,
      key: 'arguments',
    })
    parts.push(part)
    return { id: c.id, name: c.name, arguments: part }
  })
  const toolResults: ToolResult[] = (m.toolResults ?? []).map((r, i) => {
    const h: Record<string, unknown> = { ...r }
    const part = new TextPart({
      id: `messages[${index}].tool_results[${i}]`,
      messageIndex: index,
      source: 'tool',
      kind: 'tool_result',
      holder: h,
      key: 'text',
    })
    parts.push(part)
    return { toolCallId: r.toolCallId, isError: false, parts: [part] }
  })
  return { index, role: m.source, source: m.source, parts, toolCalls, toolResults }
}

/** Build an Exchange from plain messages. `body` is `{ model, tools }`; {@link Exchange.narrowTools} edits both. */
export function makeExchange(
  messages: FakeMessage[],
  options: {
    tools?: ToolDefinition[]
    model?: string
    stream?: boolean
    toolChoice?: ToolChoice
    body?: Record<string, unknown>
  } = {},
): Exchange {
  let tools = options.tools ?? []
  const body: Record<string, unknown> = { model: options.model ?? 'gpt-4o-mini', ...options.body }
  if (tools.length) body.tools = tools.map((t) => ({ ...t }))
  return {
    vendor: 'openai',
    model: options.model ?? 'gpt-4o-mini',
    stream: options.stream ?? false,
    messages: messages.map((m, i) => buildMessage(i, m)),
    get tools() {
      return tools
    },
    toolChoice: options.toolChoice,
    narrowTools(keep) {
      const removed = tools.filter((t) => !keep(t)).map((t) => t.name)
      tools = tools.filter((t) => keep(t))
      if (tools.length) body.tools = tools.map((t) => ({ ...t }))
      else delete body.tools
      return removed
    },
    body,
    bodyView: body,
  }
}

/** Build an Answer from text and tool calls; {@link Answer.removeToolCall} edits the message. */
export function makeAnswer(
  text: string | undefined,
  toolCalls: FakeMessage['toolCalls'] = [],
  options: { usage?: Usage; model?: string } = {},
): Answer {
  const message = buildMessage(0, { source: 'assistant', ...(text === undefined ? {} : { text }), toolCalls })
  const answer = {
    vendor: 'openai' as const,
    model: options.model ?? 'gpt-4o-mini',
    message,
    finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    usage: options.usage,
    body: {} as Record<string, unknown>,
    removeToolCall(id: string) {
      const calls = message.toolCalls as ToolCall[]
      const k = calls.findIndex((c) => c.id === id)
      if (k < 0) return
      const [call] = calls.splice(k, 1)
      const parts = message.parts as TextPart[]
      const p = parts.indexOf(call?.arguments as TextPart)
      if (p >= 0) parts.splice(p, 1)
      if (calls.length === 0) answer.finishReason = 'stop'
    },
  }
  return answer
}

/** Default call facts, overridable. */
export function makeCall(overrides: Partial<CallInfo> = {}): CallInfo {
  return {
    requestId: 'req-test',
    agentId: 'agent-test',
    sessionId: undefined,
    pipelineId: 'test',
    pipelineVersion: 1,
    mode: 'enforce',
    flags: new Map(),
    ...overrides,
  }
}

interface ContextBase {
  call: CallInfo
  exchange: Exchange
  findings: Finding[]
  state: Map<string, unknown>
  report(finding: FindingInput): void
  grantLabels(labels: Iterable<string>): void
}

function base(phase: Phase, exchange: Exchange, options: FakeContextOptions): ContextBase {
  const findings = options.findings ?? []
  const labels = options.labels
  return {
    grantLabels(granted) {
      for (const label of granted) labels?.add(label)
    },
    call: makeCall(options.call),
    exchange,
    findings,
    state: options.state ?? new Map(),
    report(finding) {
      findings.push({ ...finding, step: options.step ?? 'test_step', phase })
    },
  }
}

/** Options for the context builders; pass the same `state` map across phases of one call. */
export interface FakeContextOptions {
  call?: Partial<CallInfo>
  findings?: Finding[]
  state?: Map<string, unknown>
  step?: string
  /** Collects the labels a hook grants (`ctx.grantLabels`). */
  labels?: Set<string>
}

export function makeRequestContext(exchange: Exchange, options: FakeContextOptions = {}): RequestContext {
  return { phase: 'request', ...base('request', exchange, options) }
}

export function makeResponseContext(
  exchange: Exchange,
  answer: Answer,
  options: FakeContextOptions = {},
): ResponseContext {
  return { phase: 'response', answer, ...base('response', exchange, options) }
}

/** Context of `onUpstreamOutcome`. */
export function makeOutcomeContext(
  exchange: Exchange,
  outcome: UpstreamOutcome,
  options: FakeContextOptions & { provider?: string } = {},
): OutcomeContext {
  return {
    phase: 'upstream',
    provider: options.provider ?? 'openai',
    outcome,
    ...base('upstream', exchange, options),
  }
}

export function makeToolCallContext(
  exchange: Exchange,
  answer: Answer,
  toolCall: ToolCall,
  options: FakeContextOptions = {},
): ToolCallContext {
  return { phase: 'tool_call', answer, toolCall, ...base('tool_call', exchange, options) }
}

/** An in-memory {@link KeyValueStore} with TTLs, for tests. */
export class MemoryKeyValueStore implements KeyValueStore {
  readonly #data = new Map<string, { value: string; expires: number }>()
  constructor(private readonly now: () => number = Date.now) {}
  #live(key: string) {
    const entry = this.#data.get(key)
    if (entry && entry.expires <= this.now()) {
      this.#data.delete(key)
      return undefined
    }
    return entry
  }
  async get(key: string) {
    return this.#live(key)?.value
  }
  async set(key: string, value: string, ttlMs?: number) {
    this.#data.set(key, { value, expires: ttlMs ? this.now() + ttlMs : Number.POSITIVE_INFINITY })
  }
  async setIfAbsent(key: string, value: string, ttlMs?: number) {
    if (this.#live(key)) return false
    await this.set(key, value, ttlMs)
    return true
  }
  async incr(key: string, by = 1, ttlMs?: number) {
    const entry = this.#live(key)
    const next = (entry ? Number(entry.value) : 0) + by
    this.#data.set(key, {
      value: String(next),
      expires: entry ? entry.expires : ttlMs ? this.now() + ttlMs : Number.POSITIVE_INFINITY,
    })
    return next
  }
  async del(key: string) {
    this.#data.delete(key)
  }
}

/**
 * Run `work` while a 1 ms timer ticks on this thread, and tell how long the
 * work took (`ms`) and the longest time the event loop was held between two
 * ticks, or before the first or after the last (`gap`), in milliseconds. For
 * tests and benchmarks of steps that move heavy analysis off the event loop.
 */
export async function measureEventLoop(work: () => unknown): Promise<{ ms: number; gap: number }> {
  let last = performance.now()
  let gap = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gap = Math.max(gap, now - last)
    last = now
  }, 1)
  try {
    await new Promise((resolve) => setTimeout(resolve, 5))
    last = performance.now()
    const started = last
    await work()
    const ended = performance.now()
    return { ms: ended - started, gap: Math.max(gap, ended - last) }
  } finally {
    clearInterval(timer)
  }
}

const silent: StepLogger = { debug() {}, info() {}, warn() {}, error() {} }

/**
 * An in-memory {@link SessionStore} for tests, keyed by (agent, session) like
 * the host's, with a sliding TTL per namespace. Share one `MemorySessions`
 * between services to model two replicas on one store.
 */
export class MemorySessions {
  readonly #spaces = new Map<string, { fields: Map<string, string>; expires: number }>()
  constructor(private readonly now: () => number = Date.now) {}

  /** A store for one step; what `services.sessions(options)` returns. */
  store(step: string, options: SessionOptions = {}): SessionStore {
    const ttl = options.ttlMs ?? 24 * 3_600_000
    const open = (agentId: string, sessionId: string | undefined) =>
      this.#state(step, agentId, sessionId, ttl)
    return {
      of: (call) => (call.sessionId === undefined ? undefined : open(call.agentId, call.sessionId)),
      scope: (call) => open(call.agentId, call.sessionId),
    }
  }

  #state(step: string, agentId: string, sessionId: string | undefined, ttl: number): SessionState {
    const key = `${encodeURIComponent(agentId)}:${sessionId === undefined ? '*' : encodeURIComponent(sessionId)}`
    const name = `${step}|${key}`
    const space = () => {
      let entry = this.#spaces.get(name)
      if (!entry || entry.expires <= this.now()) {
        entry = { fields: new Map(), expires: 0 }
        this.#spaces.set(name, entry)
      }
      entry.expires = this.now() + ttl
      return entry.fields
    }
    return {
      agentId,
      sessionId,
      key,
      get: async (field) => space().get(field),
      getMany: async (fields) => {
        const f = space()
        return fields.map((x) => f.get(x))
      },
      set: async (field, value) => {
        space().set(field, value)
      },
      setIfAbsent: async (field, value) => {
        const f = space()
        if (f.has(field)) return false
        f.set(field, value)
        return true
      },
      incr: async (field, by = 1) => {
        const f = space()
        const next = Number(f.get(field) ?? 0) + by
        f.set(field, String(next))
        return next
      },
      entries: async () => Object.fromEntries(space()),
      del: async (field) => {
        space().delete(field)
      },
      clear: async () => {
        this.#spaces.delete(name)
      },
    }
  }
}

/** An in-process {@link Flights} for tests (the host's works across replicas). */
export class MemoryFlights implements Flights {
  readonly #flights = new Map<
    string,
    { waiters: ((v: string | undefined) => void)[]; timer: NodeJS.Timeout }
  >()
  readonly #results = new Map<string, string>()

  async join(key: string, leaseMs: number): Promise<Flight> {
    const done = this.#results.get(key)
    if (done !== undefined) return { role: 'follower', wait: async () => done }
    const running = this.#flights.get(key)
    if (running) {
      return {
        role: 'follower',
        wait: (timeoutMs) =>
          new Promise((resolve) => {
            const t = setTimeout(() => resolve(undefined), timeoutMs)
            running.waiters.push((v) => {
              clearTimeout(t)
              resolve(v)
            })
          }),
      }
    }
    const flight = {
      waiters: [] as ((v: string | undefined) => void)[],
      timer: setTimeout(() => end(undefined), leaseMs),
    }
    flight.timer.unref?.()
    this.#flights.set(key, flight)
    const end = (value: string | undefined, keepMs = 0) => {
      clearTimeout(flight.timer)
      if (this.#flights.get(key) !== flight) return
      this.#flights.delete(key)
      if (value !== undefined && keepMs > 0) {
        this.#results.set(key, value)
        setTimeout(() => this.#results.delete(key), keepMs).unref?.()
      }
      for (const w of flight.waiters) w(value)
    }
    return {
      role: 'leader',
      complete: async (value, keepMs) => end(value, keepMs),
      abandon: async () => end(undefined),
      // A follower that timed out still counts: a leader then completes, as it would without this method.
      hasFollowers: () => flight.waiters.length > 0,
    }
  }
}

/** A rough token counter for tests: one token per four characters. */
export const approximateTokens: TokenCounter = {
  count: (text) => Math.ceil(text.length / 4),
  countRequest(exchange) {
    let n = 0
    for (const m of exchange.messages) for (const p of m.parts) n += Math.ceil(p.text.length / 4) + 4
    return n
  },
}

/** A price book from a table of USD per million tokens, for tests. */
export function tablePrices(table: Record<string, { input: number; output: number }>): PriceBook {
  return {
    cost(model, usage) {
      const price = table[model]
      if (!price) return undefined
      return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000
    },
  }
}

/** Services for tests: memory KV and sessions, silent logger, counters and gauges recorded in `counts`. */
export function makeServices(
  stepName = 'test_step',
  overrides: Partial<StepServices> & { memorySessions?: MemorySessions } = {},
): StepServices & { counts: Map<string, number> } {
  const counts = new Map<string, number>()
  const { memorySessions, ...rest } = overrides
  const sessions = memorySessions ?? new MemorySessions()
  const record = (name: string, labels: Record<string, string>, value: number, add: boolean) => {
    const key = `${name}${JSON.stringify(labels)}`
    counts.set(key, (add ? (counts.get(key) ?? 0) : 0) + value)
  }
  return {
    stepName,
    logger: silent,
    kv: new MemoryKeyValueStore(),
    metrics: {
      counter(name: string): StepCounter {
        return { inc: (labels = {}, value = 1) => record(name, labels, value, true) }
      },
      gauge(name: string) {
        return { set: (labels: Record<string, string>, value: number) => record(name, labels, value, false) }
      },
    },
    sessions: (options) => sessions.store(stepName, options),
    flights: new MemoryFlights(),
    tokens: approximateTokens,
    prices: tablePrices({}),
    now: Date.now,
    counts,
    ...rest,
  }
}

/**
 * A seeded pseudo-random generator (mulberry32) returning numbers in [0, 1):
 * the same seed gives the same sequence on every machine, so a test built on
 * random cases replays its failure.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
