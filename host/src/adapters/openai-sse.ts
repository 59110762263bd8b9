import type { SseOptions } from './adapter.js'
import { isAbsent, isRecord } from './json-values.js'
import type { StreamResume } from './sse-events.js'
import { splitFragments, splitText } from './stream-pieces.js'

/**
 * Render a complete `chat.completion` body as the `chat.completion.chunk`
 * stream OpenAI sends: a role delta, content in several deltas, tool calls
 * as a first fragment (index, id, type, name, empty arguments) followed by
 * argument fragments, a final delta with `finish_reason`; with
 * `includeUsage`, `usage: null` on every chunk and a last chunk with empty
 * `choices` and the usage; then `data: [DONE]`.
 */
export function renderOpenAiSse(
  body: Record<string, unknown>,
  options: SseOptions,
  /** The role delta and this start of choice 0's content already left (windowed release). */
  resume?: StreamResume,
): string {
  // Every chunk shares its head and tail, so they are serialised once and only the choice varies.
  const headFields: Record<string, unknown> = {
    id: body.id,
    object: 'chat.completion.chunk',
    created: body.created,
    model: body.model,
  }
  if (body.service_tier !== undefined) headFields.service_tier = body.service_tier
  if (body.system_fingerprint !== undefined) headFields.system_fingerprint = body.system_fingerprint
  const head = `data: ${JSON.stringify(headFields).slice(0, -1)},"choices":`
  const tail = options.includeUsage ? ',"usage":null}\n\n' : '}\n\n'
  const out: string[] = []
  const emit = (
    index: number,
    delta: Record<string, unknown>,
    finishReason: unknown = null,
    logprobs: unknown = null,
  ) => {
    out.push(`${head}[${JSON.stringify({ index, delta, logprobs, finish_reason: finishReason })}]${tail}`)
  }
  const choices = Array.isArray(body.choices) ? body.choices : []
  choices.forEach((raw, position) => {
    const choice = isRecord(raw) ? raw : {}
    const index = typeof choice.index === 'number' ? choice.index : position
    const emitChoice: Emit = (delta, finishReason, logprobs) => emit(index, delta, finishReason, logprobs)
    renderChoice(choice, emitChoice, position === 0 ? resume?.text : undefined)
  })
  if (options.includeUsage) out.push(`${head}[],"usage":${JSON.stringify(body.usage ?? null)}}\n\n`)
  out.push('data: [DONE]\n\n')
  return out.join('')
}

type Emit = (delta: Record<string, unknown>, finishReason?: unknown, logprobs?: unknown) => void

function renderChoice(choice: Record<string, unknown>, emit: Emit, released?: string) {
  const message = isRecord(choice.message) ? choice.message : {}
  let content = typeof message.content === 'string' ? message.content : null
  if (released !== undefined) content = (content ?? '').slice(released.length)
  // A tool-call-only answer has `content: null`; an empty first delta would turn it into ''.
  else
    emit(
      {
        role: typeof message.role === 'string' ? message.role : 'assistant',
        content: content === null ? null : '',
        refusal: null,
      },
      null,
      isAbsent(choice.logprobs) ? null : choice.logprobs,
    )
  for (const piece of splitText(content ?? '')) emit({ content: piece })
  if (typeof message.refusal === 'string')
    for (const piece of splitText(message.refusal)) emit({ refusal: piece })
  if (Array.isArray(message.annotations) && message.annotations.length)
    emit({ annotations: message.annotations })
  if (Array.isArray(message.tool_calls))
    message.tool_calls.forEach((call, k) => {
      renderToolCall(call, k, emit)
    })
  if (isRecord(message.function_call)) {
    const fn = message.function_call
    emit({ function_call: { name: fn.name, arguments: '' } })
    for (const piece of splitFragments(typeof fn.arguments === 'string' ? fn.arguments : '')) {
      emit({ function_call: { arguments: piece } })
    }
  }
  emit({}, choice.finish_reason ?? 'stop')
}

function renderToolCall(raw: unknown, index: number, emit: Emit) {
  if (!isRecord(raw)) return
  const type = typeof raw.type === 'string' ? raw.type : 'function'
  const fn = isRecord(raw[type]) ? (raw[type] as Record<string, unknown>) : {}
  const key = type === 'custom' ? 'input' : 'arguments'
  emit({ tool_calls: [{ index, id: raw.id, type, [type]: { name: fn.name, [key]: '' } }] })
  for (const piece of splitFragments(typeof fn[key] === 'string' ? fn[key] : '')) {
    emit({ tool_calls: [{ index, [type]: { [key]: piece } }] })
  }
}

/** One chunk of choice 0 with `delta`, for a stream released in windows. */
export function renderOpenAiChunk(
  head: Record<string, unknown>,
  options: SseOptions,
  delta: Record<string, unknown>,
): string {
  const chunk: Record<string, unknown> = {
    id: head.id,
    object: 'chat.completion.chunk',
    created: head.created,
  }
  chunk.model = head.model
  if (head.service_tier !== undefined) chunk.service_tier = head.service_tier
  if (head.system_fingerprint !== undefined) chunk.system_fingerprint = head.system_fingerprint
  chunk.choices = [{ index: 0, delta, logprobs: null, finish_reason: null }]
  if (options.includeUsage) chunk.usage = null
  return `data: ${JSON.stringify(chunk)}\n\n`
}
