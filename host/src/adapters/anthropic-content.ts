import type { TextPart } from '@gov/core'
import { JSON_CODEC, TextPart as Part } from '@gov/core'
import { invalidRequest } from './adapter-errors.js'
import { bindString, type ContentSink, recordMedia, recordUnknown, type Speaker } from './content-sink.js'
import { isAbsent, isRecord } from './json-values.js'

/**
 * Results of Anthropic's server tools (web search and fetch, code execution,
 * tool search): the model reads their text, so every string in them is bound,
 * except the keys below, which are identifiers or metadata, not text.
 */
const SERVER_TOOL_RESULTS = new Set([
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
])
const NOT_TEXT_KEYS = new Set([
  'type',
  'id',
  'tool_use_id',
  'media_type',
  'retrieved_at',
  'page_age',
  'error_code',
  'file_type',
  'tool_name',
  'return_code',
])
/** Content gov cannot read inside a server tool result (encrypted by Anthropic, or a file by id). */
const OPAQUE_KEYS = new Set(['encrypted_content', 'encrypted_index', 'file_id'])
/** Blocks that may sit inside a server tool result (a fetched page is a `document`): bound as blocks. */
const NESTED_BLOCKS = new Set(['text', 'image', 'document', 'search_result'])

/**
 * Bind one content block of a user or assistant message. Every field that
 * carries text the model reads becomes a text part; media gov cannot read
 * (images, base64 or URL documents, files) are recorded as `media`; a block
 * type gov does not know is recorded as `unknown` for the content policy.
 * Thinking blocks pass unbound: they are the model's own signed output, and
 * an edit would make the provider refuse the turn.
 */
export function bindAnthropicBlock(block: unknown, path: string, speaker: Speaker, sink: ContentSink): void {
  if (!isRecord(block) || typeof block.type !== 'string') {
    throw invalidRequest(path, 'must be a content block with a string type')
  }
  switch (block.type) {
    case 'text':
      bindString(block, 'text', path, speaker, sink.parts, true)
      bindCitations(block, path, speaker, sink.parts)
      return
    case 'image':
      recordMedia(sink, path, 'image')
      return
    case 'document':
      bindDocument(block, path, speaker, sink)
      return
    case 'search_result':
      bindSearchResult(block, path, speaker, sink)
      return
    case 'tool_use':
      bindToolUse(block, path, speaker, sink)
      return
    case 'server_tool_use':
    case 'mcp_tool_use':
      // Server-side calls: their input is text the model wrote, not a call the agent runs.
      if (isRecord(block.input)) sink.parts.push(inputPart(block, path, speaker))
      return
    case 'tool_result':
      bindToolResult(block, path, speaker, sink)
      return
    case 'mcp_tool_result':
      bindResultContent(block, path, toolSpeaker(speaker), sink, true)
      return
    case 'container_upload':
      recordMedia(sink, path, 'container_upload')
      return
    case 'thinking':
    case 'redacted_thinking':
    case 'tool_reference':
      // A tool reference names a tool (tool search); no text of its own.
      return
    default:
      if (SERVER_TOOL_RESULTS.has(block.type)) {
        bindLeaves(block, path, toolSpeaker(speaker), sink)
        return
      }
      recordUnknown(sink, path, block.type)
  }
}

function toolSpeaker(speaker: Speaker): Speaker {
  return { messageIndex: speaker.messageIndex, source: 'tool', kind: 'tool_result' }
}

function inputPart(block: Record<string, unknown>, path: string, speaker: Speaker): TextPart {
  return new Part({
    id: `${path}.input`,
    messageIndex: speaker.messageIndex,
    source: speaker.source,
    kind: 'tool_arguments',
    holder: block,
    key: 'input',
    codec: JSON_CODEC,
  })
}

function bindToolUse(block: Record<string, unknown>, path: string, speaker: Speaker, sink: ContentSink) {
  if (typeof block.id !== 'string') throw invalidRequest(`${path}.id`, 'must be a string')
  if (typeof block.name !== 'string') throw invalidRequest(`${path}.name`, 'must be a string')
  if (!isRecord(block.input)) throw invalidRequest(`${path}.input`, 'must be an object')
  const part = inputPart(block, path, speaker)
  sink.parts.push(part)
  sink.toolCalls.push({ id: block.id, name: block.name, arguments: part })
}

/** `citations[].cited_text` of a text block sent back: the quoted text is in the context too. */
function bindCitations(block: Record<string, unknown>, path: string, speaker: Speaker, parts: TextPart[]) {
  if (!Array.isArray(block.citations)) return
  block.citations.forEach((citation, k) => {
    if (isRecord(citation)) bindString(citation, 'cited_text', `${path}.citations[${k}]`, speaker, parts)
  })
}

/**
 * A document: its `title` and `context`, and the text of a `text` or
 * `content` source. Base64 (PDF), URL and file sources are media.
 */
function bindDocument(block: Record<string, unknown>, path: string, speaker: Speaker, sink: ContentSink) {
  bindString(block, 'title', path, speaker, sink.parts)
  bindString(block, 'context', path, speaker, sink.parts)
  const source = block.source
  if (!isRecord(source) || typeof source.type !== 'string') {
    throw invalidRequest(`${path}.source`, 'must be an object with a string type')
  }
  const sourcePath = `${path}.source`
  switch (source.type) {
    case 'text':
      bindString(source, 'data', sourcePath, speaker, sink.parts, true)
      return
    case 'content':
      if (typeof source.content === 'string') {
        bindString(source, 'content', sourcePath, speaker, sink.parts)
        return
      }
      if (!Array.isArray(source.content)) {
        throw invalidRequest(`${sourcePath}.content`, 'must be a string or an array of content blocks')
      }
      source.content.forEach((inner, k) => {
        bindInner(inner, `${sourcePath}.content[${k}]`, speaker, sink, ['text', 'image'])
      })
      return
    case 'base64':
    case 'url':
    case 'file':
      recordMedia(sink, path, 'document')
      return
    default:
      recordUnknown(sink, sourcePath, `document.${source.type}`)
  }
}

/** A search result: its `source` and `title`, and its text blocks. */
function bindSearchResult(block: Record<string, unknown>, path: string, speaker: Speaker, sink: ContentSink) {
  bindString(block, 'source', path, speaker, sink.parts, true)
  bindString(block, 'title', path, speaker, sink.parts, true)
  if (!Array.isArray(block.content))
    throw invalidRequest(`${path}.content`, 'must be an array of text blocks')
  block.content.forEach((inner, k) => {
    bindInner(inner, `${path}.content[${k}]`, speaker, sink, ['text'])
  })
}

/** A block nested in a document, search result or tool result: only `allowed` types are known there. */
function bindInner(
  inner: unknown,
  path: string,
  speaker: Speaker,
  sink: ContentSink,
  allowed: readonly string[],
): void {
  if (!isRecord(inner) || typeof inner.type !== 'string') {
    throw invalidRequest(path, 'must be a content block with a string type')
  }
  if (allowed.includes(inner.type)) bindAnthropicBlock(inner, path, speaker, sink)
  else recordUnknown(sink, path, inner.type)
}

function bindToolResult(block: Record<string, unknown>, path: string, speaker: Speaker, sink: ContentSink) {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') {
    throw invalidRequest(`${path}.tool_use_id`, 'must be a non-empty string')
  }
  if (!isAbsent(block.is_error) && typeof block.is_error !== 'boolean') {
    throw invalidRequest(`${path}.is_error`, 'must be a boolean')
  }
  const first = sink.parts.length
  bindResultContent(block, path, toolSpeaker(speaker), sink, false)
  sink.toolResults.push({
    toolCallId: block.tool_use_id,
    isError: block.is_error === true,
    parts: sink.parts.slice(first),
  })
}

/** `content` of a tool result: a string, or text, image, document and search_result blocks. */
function bindResultContent(
  block: Record<string, unknown>,
  path: string,
  speaker: Speaker,
  sink: ContentSink,
  textOnly: boolean,
): void {
  const content = block.content
  if (typeof content === 'string') {
    bindString(block, 'content', path, speaker, sink.parts)
    return
  }
  if (isAbsent(content)) return
  if (!Array.isArray(content)) {
    throw invalidRequest(`${path}.content`, 'must be a string or an array of content blocks')
  }
  const allowed = textOnly ? ['text'] : ['text', 'image', 'document', 'search_result', 'tool_reference']
  content.forEach((inner, k) => {
    bindInner(inner, `${path}.content[${k}]`, speaker, sink, allowed)
  })
}

/**
 * Every string in a server tool result, bound where it lives. The body's depth
 * is bounded at parse, so the recursion is too.
 */
function bindLeaves(value: unknown, path: string, speaker: Speaker, sink: ContentSink): void {
  if (Array.isArray(value)) {
    value.forEach((item, k) => {
      bindLeaves(item, `${path}[${k}]`, speaker, sink)
    })
    return
  }
  if (!isRecord(value)) return
  if (typeof value.type === 'string' && NESTED_BLOCKS.has(value.type)) {
    bindAnthropicBlock(value, path, speaker, sink)
    return
  }
  for (const [key, item] of Object.entries(value)) {
    if (NOT_TEXT_KEYS.has(key)) continue
    if (OPAQUE_KEYS.has(key)) {
      if (typeof item === 'string') recordMedia(sink, `${path}.${key}`, key)
      continue
    }
    if (typeof item === 'string') bindString(value, key, path, speaker, sink.parts)
    else bindLeaves(item, `${path}.${key}`, speaker, sink)
  }
}
