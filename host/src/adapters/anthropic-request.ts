import type { Exchange, Message, MessageSource, ToolCall, ToolDefinition, ToolResult } from '@gov/core'
import { JSON_CODEC, TextPart } from '@gov/core'
import { invalidRequest } from './adapter-errors.js'
import { isAbsent, isRecord } from './json-values.js'

/**
 * Validate an Anthropic Messages request body and build the Exchange over it.
 * A top-level `system` becomes the first message (source `system`); text parts
 * are bound to the body's own objects (`tool_use.input` through JSON_CODEC),
 * so edits land in the body that goes upstream. Thinking, image, document and
 * unknown blocks pass untouched.
 */
export function parseAnthropicRequest(body: unknown): Exchange {
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
  messages.forEach((raw, i) => {
    parsed.push(parseMessage(raw, i, i + offset))
  })
  return {
    vendor: 'anthropic',
    model,
    stream: stream === true,
    messages: parsed,
    tools: parseTools(body.tools),
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

function parseMessage(raw: unknown, bodyIndex: number, index: number): Message {
  const path = `messages[${bodyIndex}]`
  if (!isRecord(raw)) throw invalidRequest(path, 'must be an object')
  const role = raw.role
  if (role !== 'user' && role !== 'assistant')
    throw invalidRequest(`${path}.role`, "must be 'user' or 'assistant'")
  const content = raw.content
  const parts: TextPart[] = []
  const toolCalls: ToolCall[] = []
  const toolResults: ToolResult[] = []
  if (typeof content === 'string') {
    parts.push(
      new TextPart({
        id: `${path}.content`,
        messageIndex: index,
        source: role,
        kind: 'text',
        holder: raw,
        key: 'content',
      }),
    )
  } else if (Array.isArray(content)) {
    content.forEach((block, j) => {
      bindBlock(block, `${path}.content[${j}]`, index, role, { parts, toolCalls, toolResults })
    })
  } else throw invalidRequest(`${path}.content`, 'must be a string or an array of content blocks')
  // A user turn made only of tool results is the tools speaking, not the user.
  const onlyResults = toolResults.length > 0 && parts.every((part) => part.source === 'tool')
  const source: MessageSource = onlyResults ? 'tool' : role
  return { index, role, source, parts, toolCalls, toolResults }
}

interface Collected {
  parts: TextPart[]
  toolCalls: ToolCall[]
  toolResults: ToolResult[]
}

function bindBlock(block: unknown, path: string, index: number, role: 'user' | 'assistant', out: Collected) {
  if (!isRecord(block) || typeof block.type !== 'string') {
    throw invalidRequest(path, 'must be a content block with a string type')
  }
  switch (block.type) {
    case 'text': {
      if (typeof block.text !== 'string') throw invalidRequest(`${path}.text`, 'must be a string')
      out.parts.push(
        new TextPart({
          id: `${path}.text`,
          messageIndex: index,
          source: role,
          kind: 'text',
          holder: block,
          key: 'text',
        }),
      )
      return
    }
    case 'tool_use': {
      if (typeof block.id !== 'string') throw invalidRequest(`${path}.id`, 'must be a string')
      if (typeof block.name !== 'string') throw invalidRequest(`${path}.name`, 'must be a string')
      if (!isRecord(block.input)) throw invalidRequest(`${path}.input`, 'must be an object')
      const part = new TextPart({
        id: `${path}.input`,
        messageIndex: index,
        source: role,
        kind: 'tool_arguments',
        holder: block,
        key: 'input',
        codec: JSON_CODEC,
      })
      out.parts.push(part)
      out.toolCalls.push({ id: block.id, name: block.name, arguments: part })
      return
    }
    case 'tool_result': {
      out.toolResults.push(bindToolResult(block, path, index, out.parts))
      return
    }
    case 'document': {
      // A plain-text document is text the model reads; other sources (base64 PDF, URL) pass.
      const source = block.source
      if (isRecord(source) && source.type === 'text' && typeof source.data === 'string') {
        out.parts.push(
          new TextPart({
            id: `${path}.source.data`,
            messageIndex: index,
            source: role,
            kind: 'text',
            holder: source,
            key: 'data',
          }),
        )
      }
      return
    }
    default:
      return
  }
}

function bindToolResult(
  block: Record<string, unknown>,
  path: string,
  index: number,
  parts: TextPart[],
): ToolResult {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
    throw invalidRequest(`${path}.tool_use_id`, 'must be a non-empty string')
  }
  if (!isAbsent(block.is_error) && typeof block.is_error !== 'boolean') {
    throw invalidRequest(`${path}.is_error`, 'must be a boolean')
  }
  const bind = (holder: Record<string, unknown>, key: string, id: string) =>
    new TextPart({ id, messageIndex: index, source: 'tool', kind: 'tool_result', holder, key })
  const resultParts: TextPart[] = []
  const content = block.content
  if (typeof content === 'string') resultParts.push(bind(block, 'content', `${path}.content`))
  else if (Array.isArray(content)) {
    content.forEach((inner, k) => {
      const innerPath = `${path}.content[${k}]`
      if (!isRecord(inner) || typeof inner.type !== 'string') {
        throw invalidRequest(innerPath, 'must be a content block with a string type')
      }
      if (inner.type !== 'text') return
      if (typeof inner.text !== 'string') throw invalidRequest(`${innerPath}.text`, 'must be a string')
      resultParts.push(bind(inner, 'text', `${innerPath}.text`))
    })
  } else if (!isAbsent(content)) {
    throw invalidRequest(`${path}.content`, 'must be a string or an array of content blocks')
  }
  parts.push(...resultParts)
  return { toolCallId: block.tool_use_id, isError: block.is_error === true, parts: resultParts }
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
