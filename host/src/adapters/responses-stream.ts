/**
 * Responses API streams: reassemble the complete answer from an upstream
 * stream (its final `response.completed` / `response.incomplete` event carries
 * the whole response), and render a complete answer as the event sequence the
 * SDKs expect — `response.created`, `response.in_progress`, per output item
 * `response.output_item.added`, its content parts and text deltas or function
 * call argument deltas with their `…done` events, `response.output_item.done`,
 * then `response.completed` — each with its `sequence_number`.
 */
import { invalidStream, upstreamError } from './adapter-errors.js'
import { isRecord } from './json-values.js'
import { parseEventData, readSseEvents, type StreamResume } from './sse-events.js'

const FINAL = new Set(['response.completed', 'response.incomplete', 'response.failed'])

export function reassembleResponsesStream(sse: string): Record<string, unknown> {
  for (const event of readSseEvents(sse)) {
    const data = parseEventData(event.data)
    if (!isRecord(data)) continue
    const type = typeof data.type === 'string' ? data.type : event.event
    if (type === 'error') throw upstreamError(data)
    if (type && FINAL.has(type) && isRecord(data.response)) return data.response
  }
  throw invalidStream('ended without a final response event')
}

/** Render a complete Responses answer as SSE. */
export function renderResponsesSse(
  body: Record<string, unknown>,
  /** The opening events, output 0's start and this start of its first text already left (windowed release). */
  resume?: StreamResume,
): string {
  let sequence = resume?.sequence ?? 0
  let out = ''
  const emit = (type: string, fields: Record<string, unknown>) => {
    out += responsesEvent(type, sequence++, fields)
  }
  const output = Array.isArray(body.output) ? body.output : []
  if (!resume) {
    emit('response.created', { response: { ...body, status: 'in_progress', output: [] } })
    emit('response.in_progress', { response: { ...body, status: 'in_progress', output: [] } })
  }
  output.forEach((item, outputIndex) => {
    if (!isRecord(item)) return
    const itemId = item.id
    const released = outputIndex === 0 ? resume?.text : undefined
    if (item.type === 'message' && Array.isArray(item.content)) {
      if (released === undefined)
        emit('response.output_item.added', {
          output_index: outputIndex,
          item: { ...item, status: 'in_progress', content: [] },
        })
      item.content.forEach((part, contentIndex) => {
        if (!isRecord(part)) return
        const at = { item_id: itemId, output_index: outputIndex, content_index: contentIndex }
        if (part.type === 'output_text' && contentIndex === 0 && released !== undefined) {
          const unsent = String(part.text ?? '').slice(released.length)
          if (unsent) emit('response.output_text.delta', { ...at, delta: unsent, logprobs: [] })
          emit('response.output_text.done', { ...at, text: part.text, logprobs: [] })
        } else if (part.type === 'output_text') {
          emit('response.content_part.added', { ...at, part: { ...part, text: '' } })
          emit('response.output_text.delta', { ...at, delta: part.text, logprobs: [] })
          emit('response.output_text.done', { ...at, text: part.text, logprobs: [] })
        } else if (part.type === 'refusal') {
          emit('response.content_part.added', { ...at, part: { ...part, refusal: '' } })
          emit('response.refusal.delta', { ...at, delta: part.refusal })
          emit('response.refusal.done', { ...at, refusal: part.refusal })
        } else emit('response.content_part.added', { ...at, part })
        emit('response.content_part.done', { ...at, part })
      })
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', {
        output_index: outputIndex,
        item: { ...item, status: 'in_progress', arguments: '' },
      })
      const at = { item_id: itemId, output_index: outputIndex }
      emit('response.function_call_arguments.delta', { ...at, delta: item.arguments })
      emit('response.function_call_arguments.done', { ...at, arguments: item.arguments })
    } else {
      emit('response.output_item.added', { output_index: outputIndex, item })
    }
    emit('response.output_item.done', { output_index: outputIndex, item })
  })
  const final = body.status === 'incomplete' ? 'response.incomplete' : 'response.completed'
  emit(final, { response: body })
  return out
}

/** One Responses event with its sequence number. */
export function responsesEvent(type: string, sequence: number, fields: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...fields })}\n\n`
}
