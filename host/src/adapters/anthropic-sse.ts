import { isRecord } from './json-values.js'
import type { StreamResume } from './sse-events.js'
import { splitFragments, splitText } from './stream-pieces.js'

/** One event; `type` leads the data as Anthropic writes it, without copying `data` (spreads are slow to serialise). */
export function anthropicEvent(type: string, data: Record<string, unknown>): string {
  const rest = JSON.stringify(data)
  return `event: ${type}\ndata: {"type":"${type}"${rest === '{}' ? '}' : `,${rest.slice(1)}`}\n\n`
}

/**
 * Render a complete Anthropic `message` as the event sequence Anthropic sends:
 * `message_start` (empty content, early usage), per block `content_block_start`,
 * its deltas and `content_block_stop` (a `ping` after the first start, as the
 * API does), `message_delta` with stop reason and output tokens, `message_stop`.
 */
export function renderAnthropicSse(
  body: Record<string, unknown>,
  /** `message_start`, block 0's start, the ping and this start of block 0's text already left (windowed release). */
  resume?: StreamResume,
): string {
  const { content, stop_reason, stop_sequence, usage, ...rest } = body
  const fullUsage = isRecord(usage) ? usage : {}
  const out: string[] = []
  if (!resume)
    out.push(
      anthropicEvent('message_start', {
        message: {
          ...rest,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          // Anthropic reports input counts up front and the output count at the end.
          usage: { ...fullUsage, output_tokens: Math.min(1, Number(fullUsage.output_tokens ?? 0)) },
        },
      }),
    )
  const blocks = Array.isArray(content) ? content : []
  let pinged = resume !== undefined
  const ping = () => {
    if (!pinged) out.push(anthropicEvent('ping', {}))
    pinged = true
  }
  blocks.forEach((block, index) => {
    if (isRecord(block)) renderBlock(block, index, out, ping, index === 0 ? resume?.text : undefined)
  })
  ping()
  out.push(
    anthropicEvent('message_delta', {
      delta: { stop_reason: stop_reason ?? 'end_turn', stop_sequence: stop_sequence ?? null },
      usage: { output_tokens: fullUsage.output_tokens ?? 0 },
    }),
  )
  out.push(anthropicEvent('message_stop', {}))
  return out.join('')
}

/** Write one block's start, deltas and stop; `afterStart` lets the caller slot the ping in. */
function renderBlock(
  block: Record<string, unknown>,
  index: number,
  out: string[],
  afterStart: () => void,
  released?: string,
) {
  const start = (contentBlock: Record<string, unknown>) => {
    out.push(anthropicEvent('content_block_start', { index, content_block: contentBlock }))
    afterStart()
  }
  const delta = (value: Record<string, unknown>) =>
    out.push(anthropicEvent('content_block_delta', { index, delta: value }))
  const type = block.type
  if (type === 'text') {
    const { text, ...rest } = block
    const citations = rest.citations
    if (Array.isArray(citations)) delete rest.citations
    if (released === undefined) start({ ...rest, text: '' })
    const unsent = (typeof text === 'string' ? text : '').slice(released?.length ?? 0)
    for (const piece of splitText(unsent)) delta({ type: 'text_delta', text: piece })
    if (Array.isArray(citations))
      for (const citation of citations) delta({ type: 'citations_delta', citation })
  } else if (typeof type === 'string' && type.endsWith('tool_use') && isRecord(block.input)) {
    // tool_use, server_tool_use and mcp_tool_use stream their input as JSON fragments.
    start({ ...block, input: {} })
    for (const piece of splitFragments(JSON.stringify(block.input)))
      delta({ type: 'input_json_delta', partial_json: piece })
  } else if (type === 'thinking') {
    const { thinking, signature, ...rest } = block
    start({ ...rest, thinking: '' })
    for (const piece of splitText(typeof thinking === 'string' ? thinking : '')) {
      delta({ type: 'thinking_delta', thinking: piece })
    }
    if (typeof signature === 'string') delta({ type: 'signature_delta', signature })
  } else {
    // redacted_thinking, tool results of server tools and unknown blocks arrive whole in their start event.
    start(block)
  }
  out.push(anthropicEvent('content_block_stop', { index }))
}
