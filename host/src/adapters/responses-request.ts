/**
 * The OpenAI Responses API request (`POST /v1/responses`) as an Exchange:
 * `instructions` (system), `input` as a string or a list of items — messages
 * with `input_text`/`output_text` parts, `function_call` (the assistant's tool
 * calls, arguments bound as JSON text) and `function_call_output` (tool
 * results) — and flat function `tools`. Items gov cannot read (images, files,
 * audio, encrypted reasoning, the provider's own built-in tool calls) pass and
 * are recorded as unscanned.
 */
import type { Message, MessageSource, ToolCall, ToolDefinition, UnscannedContent } from '@gov/core'
import { TextPart } from '@gov/core'
import type { ExchangeData } from './adapter.js'
import { invalidRequest } from './adapter-errors.js'
import {
  bindString,
  type ContentSink,
  messageSink,
  recordMedia,
  recordUnknown,
  type Speaker,
} from './content-sink.js'
import { isAbsent, isRecord } from './json-values.js'

const ROLE_SOURCES: Readonly<Record<string, MessageSource>> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
}
const TEXT_PARTS = new Set(['input_text', 'output_text', 'text'])
const MEDIA_PARTS = new Set(['input_image', 'input_file', 'input_audio'])
/** Items that carry nothing for the model to read as text (or nothing gov can read): passed, recorded. */
const OPAQUE_ITEMS = new Set([
  'reasoning',
  'item_reference',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'code_interpreter_call',
  'image_generation_call',
  'local_shell_call',
  'local_shell_call_output',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
])

export function parseResponsesRequest(body: unknown): ExchangeData {
  if (!isRecord(body)) throw invalidRequest('body', 'must be a JSON object')
  const { model, input, stream } = body
  if (typeof model !== 'string' || model === '') throw invalidRequest('model', 'must be a non-empty string')
  if (!isAbsent(stream) && typeof stream !== 'boolean') throw invalidRequest('stream', 'must be a boolean')
  const unscanned: UnscannedContent[] = []
  const messages: Message[] = []
  const add = (role: string, source: MessageSource, fill: (speaker: Speaker, sink: ContentSink) => void) => {
    const index = messages.length
    const sink = messageSink(unscanned)
    fill({ messageIndex: index, source, kind: source === 'tool' ? 'tool_result' : 'text' }, sink)
    messages.push({
      index,
      role,
      source,
      parts: sink.parts,
      toolCalls: sink.toolCalls,
      toolResults: sink.toolResults,
    })
  }
  if (!isAbsent(body.instructions)) {
    add('system', 'system', (speaker, sink) => bindString(body, 'instructions', 'body', speaker, sink.parts))
  }
  if (typeof input === 'string') {
    add('user', 'user', (speaker, sink) => bindString(body, 'input', 'body', speaker, sink.parts))
  } else if (Array.isArray(input)) {
    input.forEach((item, k) => {
      parseItem(item, `input[${k}]`, add)
    })
  } else throw invalidRequest('input', 'must be a string or an array of items')
  if (messages.length === 0) throw invalidRequest('input', 'must not be empty')
  return {
    vendor: 'openai-responses',
    model,
    stream: stream === true,
    messages,
    tools: parseTools(body.tools),
    unscanned,
    body,
  }
}

type Add = (role: string, source: MessageSource, fill: (speaker: Speaker, sink: ContentSink) => void) => void

function parseItem(item: unknown, path: string, add: Add): void {
  if (!isRecord(item)) throw invalidRequest(path, 'must be an object')
  const type = item.type ?? 'message'
  if (type === 'message') {
    const role = item.role
    if (typeof role !== 'string' || !Object.hasOwn(ROLE_SOURCES, role)) {
      throw invalidRequest(`${path}.role`, `must be one of ${Object.keys(ROLE_SOURCES).join(', ')}`)
    }
    add(role, ROLE_SOURCES[role] as MessageSource, (speaker, sink) => bindContent(item, path, speaker, sink))
    return
  }
  if (type === 'function_call') {
    if (
      typeof item.call_id !== 'string' ||
      typeof item.name !== 'string' ||
      typeof item.arguments !== 'string'
    ) {
      throw invalidRequest(path, 'must be a function_call with call_id, name and arguments strings')
    }
    add('assistant', 'assistant', (speaker, sink) => {
      const part = new TextPart({
        id: `${path}.arguments`,
        messageIndex: speaker.messageIndex,
        source: 'assistant',
        kind: 'tool_arguments',
        holder: item,
        key: 'arguments',
      })
      sink.parts.push(part)
      sink.toolCalls.push({
        id: item.call_id as string,
        name: item.name as string,
        arguments: part,
      } as ToolCall)
    })
    return
  }
  if (type === 'function_call_output') {
    if (typeof item.call_id !== 'string') throw invalidRequest(`${path}.call_id`, 'must be a string')
    add('tool', 'tool', (speaker, sink) => {
      if (Array.isArray(item.output))
        bindContent({ content: item.output }, `${path}.output`, speaker, sink, item, 'output')
      else bindString(item, 'output', path, speaker, sink.parts, true)
      sink.toolResults.push({ toolCallId: item.call_id as string, isError: false, parts: [...sink.parts] })
    })
    return
  }
  if (typeof type === 'string' && OPAQUE_ITEMS.has(type)) {
    add('assistant', 'assistant', (_speaker, sink) => recordMedia(sink, path, type))
    return
  }
  add('user', 'user', (_speaker, sink) => recordUnknown(sink, path, String(type)))
}

/** A message's `content`: a string or a list of parts. */
function bindContent(
  message: Record<string, unknown>,
  path: string,
  speaker: Speaker,
  sink: ContentSink,
  holder: Record<string, unknown> = message,
  key = 'content',
): void {
  const content = message.content
  if (typeof content === 'string') {
    bindString(holder, key, path, speaker, sink.parts)
    return
  }
  if (!Array.isArray(content)) throw invalidRequest(`${path}.${key}`, 'must be a string or an array of parts')
  content.forEach((part, j) => {
    const at = `${path}.${key}[${j}]`
    if (!isRecord(part) || typeof part.type !== 'string') throw invalidRequest(at, 'must be a typed part')
    if (TEXT_PARTS.has(part.type)) bindString(part, 'text', at, speaker, sink.parts, true)
    else if (part.type === 'refusal') bindString(part, 'refusal', at, speaker, sink.parts, true)
    else if (MEDIA_PARTS.has(part.type)) recordMedia(sink, at, part.type)
    else recordUnknown(sink, at, part.type)
  })
}

/** Flat function tools `{type: 'function', name, description?, parameters?}`; built-in tools by their type. */
function parseTools(tools: unknown): ToolDefinition[] {
  if (isAbsent(tools)) return []
  if (!Array.isArray(tools)) throw invalidRequest('tools', 'must be an array')
  return tools.map((tool, k) => {
    const path = `tools[${k}]`
    if (!isRecord(tool) || typeof tool.type !== 'string') throw invalidRequest(path, 'must be a typed tool')
    if (tool.type !== 'function' && tool.type !== 'custom') {
      return { name: typeof tool.name === 'string' ? tool.name : tool.type }
    }
    if (typeof tool.name !== 'string' || tool.name === '')
      throw invalidRequest(`${path}.name`, 'must be a non-empty string')
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
    }
  })
}
