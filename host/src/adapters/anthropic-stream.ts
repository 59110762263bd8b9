import { invalidStream, upstreamError } from './adapter-errors.js'
import { isRecord } from './json-values.js'
import { parseEventData, readSseEvents } from './sse-events.js'

/**
 * Reassemble an Anthropic `message` from a Messages SSE stream: the message of
 * `message_start`, each content block from its start event and deltas (text,
 * tool input JSON, thinking, signature, citations), stop reason and usage from
 * `message_delta`. The stream must reach `message_stop`.
 */
export function reassembleAnthropicStream(sse: string): Record<string, unknown> {
  let message: Record<string, unknown> | undefined
  const blocks: Record<string, unknown>[] = []
  const inputJson = new Map<number, string>()
  let stopped = false
  for (const event of readSseEvents(sse)) {
    const data = parseEventData(event.data)
    if (!isRecord(data)) throw invalidStream('carries an event that is not an object')
    const type = data.type ?? event.event
    if (type === 'error') throw upstreamError(data.error)
    if (type === 'message_start') {
      if (!isRecord(data.message)) throw invalidStream('carries a message_start without a message')
      message = { ...data.message }
      continue
    }
    if (type === 'ping') continue
    if (!message) throw invalidStream('sent an event before message_start')
    switch (type) {
      case 'content_block_start': {
        if (typeof data.index !== 'number' || !isRecord(data.content_block)) {
          throw invalidStream('carries a content_block_start without index or block')
        }
        blocks[data.index] = { ...data.content_block }
        break
      }
      case 'content_block_delta':
        applyDelta(blockAt(blocks, data.index), data.delta, data.index as number, inputJson)
        break
      case 'content_block_stop':
        finishInput(blockAt(blocks, data.index), data.index as number, inputJson)
        break
      case 'message_delta':
        applyMessageDelta(message, data)
        break
      case 'message_stop':
        stopped = true
        break
      default:
        // Anthropic may add event types; its versioning policy asks clients to skip unknown ones.
        break
    }
    if (stopped) break
  }
  if (!message) throw invalidStream('ended without any event')
  if (!stopped) throw invalidStream('ended before message_stop')
  for (const index of inputJson.keys()) finishInput(blockAt(blocks, index), index, inputJson)
  message.content = [...(Array.isArray(message.content) ? message.content : []), ...blocks.filter(Boolean)]
  return message
}

function blockAt(blocks: Record<string, unknown>[], index: unknown): Record<string, unknown> {
  const block = typeof index === 'number' ? blocks[index] : undefined
  if (!block) throw invalidStream('refers to a content block before its start')
  return block
}

function applyDelta(
  block: Record<string, unknown>,
  delta: unknown,
  index: number,
  inputJson: Map<number, string>,
) {
  if (!isRecord(delta)) throw invalidStream('carries a content_block_delta without a delta')
  switch (delta.type) {
    case 'text_delta':
      block.text = (typeof block.text === 'string' ? block.text : '') + String(delta.text ?? '')
      break
    case 'input_json_delta':
      inputJson.set(index, (inputJson.get(index) ?? '') + String(delta.partial_json ?? ''))
      break
    case 'thinking_delta':
      block.thinking =
        (typeof block.thinking === 'string' ? block.thinking : '') + String(delta.thinking ?? '')
      break
    case 'signature_delta':
      block.signature = delta.signature
      break
    case 'citations_delta':
      block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation]
      break
    default:
      break
  }
}

/** Tool input arrives as JSON fragments; it is only parseable once the block stops. */
function finishInput(block: Record<string, unknown>, index: number, inputJson: Map<number, string>) {
  const json = inputJson.get(index)
  if (json === undefined) return
  inputJson.delete(index)
  if (json.trim() === '') return
  try {
    block.input = JSON.parse(json)
  } catch {
    throw invalidStream(`carries tool input for block ${index} that is not JSON`)
  }
}

function applyMessageDelta(message: Record<string, unknown>, data: Record<string, unknown>) {
  if (isRecord(data.delta)) {
    for (const [key, value] of Object.entries(data.delta)) message[key] = value
  }
  if (isRecord(data.usage)) {
    const usage: Record<string, unknown> = isRecord(message.usage) ? { ...message.usage } : {}
    // The final counts replace the early ones of message_start; a null means "not reported here".
    for (const [key, value] of Object.entries(data.usage)) if (value !== null) usage[key] = value
    message.usage = usage
  }
}
