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
  ToolDefinition,
  ToolResult,
} from './exchange.js'
import { TextPart } from './exchange.js'
import type { Finding, FindingInput, Phase } from './finding.js'
import type { KeyValueStore, StepCounter, StepLogger, StepServices } from './services.js'
import type { CallInfo, RequestContext, ResponseContext, ToolCallContext } from './step.js'

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

/** Build an Exchange from plain messages. */
export function makeExchange(
  messages: FakeMessage[],
  options: { tools?: ToolDefinition[]; model?: string; stream?: boolean } = {},
): Exchange {
  return {
    vendor: 'openai',
    model: options.model ?? 'gpt-4o-mini',
    stream: options.stream ?? false,
    messages: messages.map((m, i) => buildMessage(i, m)),
    tools: options.tools ?? [],
    body: {},
  }
}

/** Build an Answer from text and tool calls. */
export function makeAnswer(text: string | undefined, toolCalls: FakeMessage['toolCalls'] = []): Answer {
  const message = buildMessage(0, { source: 'assistant', ...(text === undefined ? {} : { text }), toolCalls })
  return {
    vendor: 'openai',
    model: 'gpt-4o-mini',
    message,
    finishReason: toolCalls.length ? 'tool_calls' : 'stop',
    usage: undefined,
    body: {},
  }
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
}

function base(
  phase: Phase,
  exchange: Exchange,
  options: { call?: Partial<CallInfo>; findings?: Finding[]; state?: Map<string, unknown>; step?: string },
): ContextBase {
  const findings = options.findings ?? []
  return {
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

/** Services for tests: memory KV, silent logger, counters recorded in `counts`. */
export function makeServices(
  stepName = 'test_step',
  overrides: Partial<StepServices> = {},
): StepServices & { counts: Map<string, number> } {
  const counts = new Map<string, number>()
  return {
    stepName,
    logger: silent,
    kv: new MemoryKeyValueStore(),
    metrics: {
      counter(name: string): StepCounter {
        return {
          inc(labels = {}, value = 1) {
            const key = `${name}${JSON.stringify(labels)}`
            counts.set(key, (counts.get(key) ?? 0) + value)
          },
        }
      },
    },
    now: Date.now,
    counts,
    ...overrides,
  }
}
