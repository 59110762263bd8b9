import { invalidStream, upstreamError } from './adapter-errors.js'
import { isRecord } from './json-values.js'
import { parseEventData, readSseEvents } from './sse-events.js'

/** Top-level fields every chunk repeats and the complete answer keeps. */
const HEAD_FIELDS = ['id', 'created', 'model', 'service_tier', 'system_fingerprint'] as const

interface ToolCallState {
  id: string
  type: string
  name: string
  /** `function.arguments` or `custom.input`, concatenated. */
  input: string
}

interface LogprobsState {
  content: unknown[] | null
  refusal: unknown[] | null
}

interface ChoiceState {
  index: number
  role: string
  content: string | null
  refusal: string | null
  annotations: unknown[]
  toolCalls: Map<number, ToolCallState>
  functionCall: { name: string; arguments: string } | undefined
  finishReason: unknown
  logprobs: LogprobsState | null
}

/**
 * Reassemble a `chat.completion` body from a Chat Completions SSE stream:
 * content and refusal deltas concatenated per choice, tool calls assembled by
 * their `index` (id and name from the first fragment, arguments concatenated),
 * logprobs and annotations collected, usage from the usage chunk.
 */
export function reassembleOpenAiStream(sse: string): Record<string, unknown> {
  const head: Record<string, unknown> = {}
  const choices = new Map<number, ChoiceState>()
  let usage: unknown
  let chunks = 0
  let done = false
  for (const event of readSseEvents(sse)) {
    if (event.data.trim() === '[DONE]') {
      done = true
      break
    }
    const chunk = parseEventData(event.data)
    if (!isRecord(chunk)) throw invalidStream('carries a chunk that is not an object')
    if (chunk.error !== undefined && chunk.error !== null) throw upstreamError(chunk.error)
    chunks++
    for (const field of HEAD_FIELDS) {
      if (head[field] === undefined && chunk[field] !== undefined) head[field] = chunk[field]
    }
    if (isRecord(chunk.usage)) usage = chunk.usage
    if (Array.isArray(chunk.choices)) for (const choice of chunk.choices) applyChoiceDelta(choices, choice)
  }
  if (chunks === 0) throw invalidStream('ended without any chunk')
  const states = [...choices.values()].sort((a, b) => a.index - b.index)
  if (!done && !states.some((state) => state.finishReason !== null)) {
    throw invalidStream('ended before its final chunk')
  }
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: states.map(buildChoice),
    ...(usage !== undefined ? { usage } : {}),
    ...(head.service_tier !== undefined ? { service_tier: head.service_tier } : {}),
    ...(head.system_fingerprint !== undefined ? { system_fingerprint: head.system_fingerprint } : {}),
  }
}

function applyChoiceDelta(choices: Map<number, ChoiceState>, raw: unknown) {
  if (!isRecord(raw)) throw invalidStream('carries a choice that is not an object')
  const index = typeof raw.index === 'number' ? raw.index : 0
  let state = choices.get(index)
  if (!state) {
    state = {
      index,
      role: 'assistant',
      content: null,
      refusal: null,
      annotations: [],
      toolCalls: new Map(),
      functionCall: undefined,
      finishReason: null,
      logprobs: null,
    }
    choices.set(index, state)
  }
  const delta = isRecord(raw.delta) ? raw.delta : {}
  if (typeof delta.role === 'string') state.role = delta.role
  if (typeof delta.content === 'string') state.content = (state.content ?? '') + delta.content
  if (typeof delta.refusal === 'string') state.refusal = (state.refusal ?? '') + delta.refusal
  if (Array.isArray(delta.annotations)) state.annotations.push(...delta.annotations)
  if (Array.isArray(delta.tool_calls))
    delta.tool_calls.forEach((call, k) => {
      applyToolCallDelta(state, call, k)
    })
  if (isRecord(delta.function_call)) {
    const fn = delta.function_call
    state.functionCall ??= { name: '', arguments: '' }
    if (typeof fn.name === 'string' && state.functionCall.name === '') state.functionCall.name = fn.name
    if (typeof fn.arguments === 'string') state.functionCall.arguments += fn.arguments
  }
  if (raw.finish_reason !== undefined && raw.finish_reason !== null) state.finishReason = raw.finish_reason
  if (isRecord(raw.logprobs)) applyLogprobs(state, raw.logprobs)
}

function applyToolCallDelta(state: ChoiceState, raw: unknown, position: number) {
  if (!isRecord(raw)) throw invalidStream('carries a tool call fragment that is not an object')
  const index = typeof raw.index === 'number' ? raw.index : position
  let call = state.toolCalls.get(index)
  if (!call) {
    call = { id: '', type: typeof raw.type === 'string' ? raw.type : 'function', name: '', input: '' }
    state.toolCalls.set(index, call)
  }
  // Some OpenAI-compatible upstreams repeat id and name on later fragments; the first one wins.
  if (typeof raw.id === 'string' && call.id === '') call.id = raw.id
  const body = isRecord(raw.function) ? raw.function : isRecord(raw.custom) ? raw.custom : undefined
  if (!body) return
  if (typeof body.name === 'string' && call.name === '') call.name = body.name
  const piece = body.arguments ?? body.input
  if (typeof piece === 'string') call.input += piece
}

function applyLogprobs(state: ChoiceState, logprobs: Record<string, unknown>) {
  state.logprobs ??= { content: null, refusal: null }
  for (const key of ['content', 'refusal'] as const) {
    const items = logprobs[key]
    if (Array.isArray(items)) state.logprobs[key] = [...(state.logprobs[key] ?? []), ...items]
  }
}

function buildChoice(state: ChoiceState): Record<string, unknown> {
  const toolCalls = [...state.toolCalls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) =>
      call.type === 'custom'
        ? { id: call.id, type: 'custom', custom: { name: call.name, input: call.input } }
        : { id: call.id, type: call.type, function: { name: call.name, arguments: call.input } },
    )
  const message: Record<string, unknown> = {
    role: state.role,
    content: state.content,
    refusal: state.refusal,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(state.functionCall ? { function_call: state.functionCall } : {}),
    annotations: state.annotations,
  }
  return { index: state.index, message, logprobs: state.logprobs, finish_reason: state.finishReason }
}
