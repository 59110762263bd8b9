import type { MessageSource, TextPartKind, ToolCall, ToolResult, UnscannedContent } from '@gov/core'
import { TextPart } from '@gov/core'
import { invalidRequest } from './adapter-errors.js'
import { isAbsent } from './json-values.js'

/** What binding the content of one message collects. */
export interface ContentSink {
  readonly parts: TextPart[]
  readonly toolCalls: ToolCall[]
  readonly toolResults: ToolResult[]
  /** Shared by every message of the request: content gov cannot read or does not know. */
  readonly unscanned: UnscannedContent[]
}

/** Whose text a block holds: the message, and what its text parts are. */
export interface Speaker {
  readonly messageIndex: number
  readonly source: MessageSource
  readonly kind: TextPartKind
}

/** A fresh sink for one message that records unscanned content into the request's list. */
export function messageSink(unscanned: UnscannedContent[]): ContentSink {
  return { parts: [], toolCalls: [], toolResults: [], unscanned }
}

/**
 * Bind `holder[key]` as a text part of `speaker`. A missing value is fine
 * unless `required`; a value that is not a string is a 400 naming the field.
 */
export function bindString(
  holder: Record<string, unknown>,
  key: string,
  path: string,
  speaker: Speaker,
  parts: TextPart[],
  required = false,
): void {
  const value = holder[key]
  if (typeof value === 'string') {
    // Fields named, not `...speaker`: a spread into a literal is a runtime copy per text part.
    parts.push(
      new TextPart({
        id: `${path}.${key}`,
        messageIndex: speaker.messageIndex,
        source: speaker.source,
        kind: speaker.kind,
        holder,
        key,
      }),
    )
    return
  }
  if (required || !isAbsent(value)) throw invalidRequest(`${path}.${key}`, 'must be a string')
}

/** Media gov cannot read (images, audio, base64 PDFs, files by id): passes, recorded. */
export function recordMedia(sink: ContentSink, path: string, type: string): void {
  sink.unscanned.push({ path, kind: 'media', type })
}

/** A block type gov does not know: recorded; the pipeline's content policy refuses or passes it. */
export function recordUnknown(sink: ContentSink, path: string, type: string): void {
  sink.unscanned.push({ path, kind: 'unknown', type: TYPE_NAME.test(type) ? type : '(not a type name)' })
}

/** The caller chose the type string: anything else than a short name is not kept (it lands in findings and logs). */
const TYPE_NAME = /^[A-Za-z0-9_.:/-]{1,64}$/
