import type {
  Message,
  MessageSource,
  TextPartKind,
  ToolCall,
  ToolDefinition,
  UnscannedContent,
} from '@gov/core'
import type { ExchangeData } from './adapter.js'
import { invalidRequest } from './adapter-errors.js'
import { bindString, type ContentSink, messageSink, type Speaker } from './content-sink.js'
import { isAbsent, isRecord } from './json-values.js'
import { bindAssistantExtras, bindOpenAiPart } from './openai-content.js'
import { bindOpenAiFunctionCall, bindOpenAiToolCall } from './openai-tool-calls.js'

/** Roles of the Chat Completions format and where their text comes from. */
const ROLE_SOURCES: Readonly<Record<string, MessageSource>> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
  function: 'tool',
}

/**
 * Validate a Chat Completions request body and build the Exchange over it. The
 * Exchange's text parts are bound to the body's own objects, so edits land in
 * the body that goes upstream and fields gov does not know stay as sent.
 */
export function parseOpenAiRequest(body: unknown): ExchangeData {
  if (!isRecord(body)) throw invalidRequest('body', 'must be a JSON object')
  const { model, messages, stream } = body
  if (typeof model !== 'string' || model === '') throw invalidRequest('model', 'must be a non-empty string')
  if (!isAbsent(stream) && typeof stream !== 'boolean') throw invalidRequest('stream', 'must be a boolean')
  if (!Array.isArray(messages) || messages.length === 0) {
    throw invalidRequest('messages', 'must be a non-empty array')
  }
  const unscanned: UnscannedContent[] = []
  return {
    vendor: 'openai',
    model,
    stream: stream === true,
    messages: messages.map((raw, index) => parseMessage(raw, index, unscanned)),
    tools: [...parseTools(body.tools), ...parseFunctions(body.functions)],
    unscanned,
    body,
  }
}

function parseMessage(raw: unknown, index: number, unscanned: UnscannedContent[]): Message {
  const path = `messages[${index}]`
  if (!isRecord(raw)) throw invalidRequest(path, 'must be an object')
  const role = raw.role
  if (typeof role !== 'string' || !Object.hasOwn(ROLE_SOURCES, role)) {
    throw invalidRequest(`${path}.role`, `must be one of ${Object.keys(ROLE_SOURCES).join(', ')}`)
  }
  const source = ROLE_SOURCES[role]
  const kind: TextPartKind = source === 'tool' ? 'tool_result' : 'text'
  const speaker: Speaker = { messageIndex: index, source, kind }
  const sink = messageSink(unscanned)
  bindContent(raw, path, role, speaker, sink)
  if (role === 'assistant') bindAssistantExtras(raw, path, speaker, sink)
  const parts = sink.parts
  const toolCalls = role === 'assistant' ? bindAssistantCalls(raw, path, index) : []
  for (const call of toolCalls) parts.push(call.arguments)
  if (role === 'tool' && (typeof raw.tool_call_id !== 'string' || raw.tool_call_id === '')) {
    throw invalidRequest(`${path}.tool_call_id`, 'must be a non-empty string on a tool message')
  }
  if (role === 'function' && typeof raw.name !== 'string') {
    throw invalidRequest(`${path}.name`, 'must be a string on a function message')
  }
  const toolCallId = role === 'tool' ? (raw.tool_call_id as string) : (raw.name as string)
  const toolResults = source === 'tool' ? [{ toolCallId, isError: false, parts: [...parts] }] : []
  return { index, role, source, parts, toolCalls, toolResults }
}

/** Text parts of `content`: a string, null (assistant, function), or an array of parts. */
function bindContent(
  message: Record<string, unknown>,
  path: string,
  role: string,
  speaker: Speaker,
  sink: ContentSink,
): void {
  const content = message.content
  if (typeof content === 'string') {
    bindString(message, 'content', path, speaker, sink.parts)
    return
  }
  if (isAbsent(content)) {
    if (role === 'assistant' || role === 'function') return
    throw invalidRequest(`${path}.content`, `is required on a ${role} message`)
  }
  if (!Array.isArray(content))
    throw invalidRequest(`${path}.content`, 'must be a string or an array of parts')
  content.forEach((part, j) => {
    bindOpenAiPart(part, `${path}.content[${j}]`, speaker, sink)
  })
}

function bindAssistantCalls(message: Record<string, unknown>, path: string, index: number): ToolCall[] {
  const calls: ToolCall[] = []
  const toolCalls = message.tool_calls
  if (!isAbsent(toolCalls)) {
    if (!Array.isArray(toolCalls)) throw invalidRequest(`${path}.tool_calls`, 'must be an array')
    toolCalls.forEach((raw, k) => {
      const call = bindOpenAiToolCall(raw, `${path}.tool_calls[${k}]`, index, 'assistant', invalidRequest)
      if (call) calls.push(call)
    })
  }
  if (!isAbsent(message.function_call)) {
    calls.push(
      bindOpenAiFunctionCall(
        message.function_call,
        `${path}.function_call`,
        index,
        'assistant',
        invalidRequest,
      ),
    )
  }
  return calls
}

/** `tools`: `{type: 'function', function: {name, description?, parameters?}}` (and `custom` tools). */
function parseTools(tools: unknown): ToolDefinition[] {
  if (isAbsent(tools)) return []
  if (!Array.isArray(tools)) throw invalidRequest('tools', 'must be an array')
  return tools.map((tool, k) => {
    const path = `tools[${k}]`
    if (!isRecord(tool)) throw invalidRequest(path, 'must be an object')
    if (tool.type !== 'function' && tool.type !== 'custom') {
      throw invalidRequest(`${path}.type`, "must be 'function' or 'custom'")
    }
    return parseFunction(tool[tool.type], `${path}.${tool.type}`)
  })
}

/** The deprecated top-level `functions` list, still accepted by the API. */
function parseFunctions(functions: unknown): ToolDefinition[] {
  if (isAbsent(functions)) return []
  if (!Array.isArray(functions)) throw invalidRequest('functions', 'must be an array')
  return functions.map((fn, k) => parseFunction(fn, `functions[${k}]`))
}

function parseFunction(fn: unknown, path: string): ToolDefinition {
  if (!isRecord(fn)) throw invalidRequest(path, 'must be an object')
  if (typeof fn.name !== 'string' || fn.name === '')
    throw invalidRequest(`${path}.name`, 'must be a non-empty string')
  if (!isAbsent(fn.description) && typeof fn.description !== 'string') {
    throw invalidRequest(`${path}.description`, 'must be a string')
  }
  if (!isAbsent(fn.parameters) && !isRecord(fn.parameters)) {
    throw invalidRequest(`${path}.parameters`, 'must be a JSON schema object')
  }
  return {
    name: fn.name,
    ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
    ...(fn.parameters !== undefined ? { parameters: fn.parameters } : {}),
  }
}
