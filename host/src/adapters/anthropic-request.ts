import type { Message, MessageSource, ToolDefinition, UnscannedContent } from '@gov/core'
import { TextPart } from '@gov/core'
import type { ExchangeData } from './adapter.js'
import { invalidRequest } from './adapter-errors.js'
import { bindAnthropicBlock } from './anthropic-content.js'
import { bindString, messageSink } from './content-sink.js'
import { isAbsent, isRecord } from './json-values.js'

/**
 * Validate an Anthropic Messages request body and build the Exchange over it.
 * A top-level `system` becomes the first message (source `system`); text parts
 * are bound to the body's own objects (`tool_use.input` through JSON_CODEC),
 * so edits land in the body that goes upstream. Content blocks are bound by
 * `anthropic-content.ts`: media and unknown blocks land in `unscanned`.
 */
export function parseAnthropicRequest(body: unknown): ExchangeData {
  if (!isRecord(body)) throw invalidRequest('body', 'must be a JSON object')
  const { model, messages, stream } = body
  if (typeof model !== 'string' || model === '') throw invalidRequest('model', 'must be a non-empty string')
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    throw invalidRequest('max_tokens', 'must be a positive integer')
  }
  if (!isAbsent(stream) && typeof stream !== 'boolean') throw invalidRequest('stream', 'must be a boolean')
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalidRequest('messages', 'must be a non-empty array')
  }
  const parsed: Message[] = []
  const system = parseSystem(body)
  if (system) parsed.push(system)
  const offset = parsed.length
  const unscanned: UnscannedContent[] = []
  messages.forEach((raw, i) => {
    parsed.push(parseMessage(raw, i, i + offset, unscanned))
  })
  return {
    vendor: 'anthropic',
    model,
    stream: stream === true,
    messages: parsed,
    tools: parseTools(body.tools),
    unscanned,
    body,
  }
}

function parseSystem(body: Record<string, unknown>): Message | undefined {
  const system = body.system
  if (isAbsent(system)) return undefined
  const bind = (holder: Record<string, unknown>, key: string, id: string) =>
    new TextPart({ id, messageIndex: 0, source: 'system', kind: 'text', holder, key })
  let parts: TextPart[]
  if (typeof system === 'string') parts = [bind(body, 'system', 'system')]
  else if (Array.isArray(system)) {
    parts = system.map((block, j) => {
      if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') {
        throw invalidRequest(`system[${j}]`, 'must be a text block')
      }
      return bind(block, 'text', `system[${j}].text`)
    })
  } else throw invalidRequest('system', 'must be a string or an array of text blocks')
  return { index: 0, role: 'system', source: 'system', parts, toolCalls: [], toolResults: [] }
}

function parseMessage(
  raw: unknown,
  bodyIndex: number,
  index: number,
  unscanned: UnscannedContent[],
): Message {
  const path = `messages[${bodyIndex}]`
  if (!isRecord(raw)) throw invalidRequest(path, 'must be an object')
  const role = raw.role
  if (role !== 'user' && role !== 'assistant')
    throw invalidRequest(`${path}.role`, "must be 'user' or 'assistant'")
  const content = raw.content
  const sink = messageSink(unscanned)
  const { parts, toolCalls, toolResults } = sink
  const speaker = { messageIndex: index, source: role, kind: 'text' } as const
  if (typeof content === 'string') bindString(raw, 'content', path, speaker, parts)
  else if (Array.isArray(content)) {
    content.forEach((block, j) => {
      bindAnthropicBlock(block, `${path}.content[${j}]`, speaker, sink)
    })
  } else throw invalidRequest(`${path}.content`, 'must be a string or an array of content blocks')
  // A user turn made only of tool results is the tools speaking, not the user.
  const onlyResults = toolResults.length > 0 && parts.every((part) => part.source === 'tool')
  const source: MessageSource = onlyResults ? 'tool' : role
  return { index, role, source, parts, toolCalls, toolResults }
}

/** Client tools `{name, description?, input_schema}`; server tools (with a `type`) pass as named. */
function parseTools(tools: unknown): ToolDefinition[] {
  if (isAbsent(tools)) return []
  if (!Array.isArray(tools)) throw invalidRequest('tools', 'must be an array')
  return tools.map((tool, k) => {
    const path = `tools[${k}]`
    if (!isRecord(tool)) throw invalidRequest(path, 'must be an object')
    const serverTool = typeof tool.type === 'string' && tool.type !== 'custom'
    if (serverTool) return { name: typeof tool.name === 'string' ? tool.name : (tool.type as string) }
    if (typeof tool.name !== 'string' || tool.name === '') {
      throw invalidRequest(`${path}.name`, 'must be a non-empty string')
    }
    if (!isAbsent(tool.description) && typeof tool.description !== 'string') {
      throw invalidRequest(`${path}.description`, 'must be a string')
    }
    if (!isRecord(tool.input_schema))
      throw invalidRequest(`${path}.input_schema`, 'must be a JSON schema object')
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      parameters: tool.input_schema,
    }
  })
}
