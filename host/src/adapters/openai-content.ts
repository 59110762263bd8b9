import { invalidRequest } from './adapter-errors.js'
import { bindString, type ContentSink, recordMedia, recordUnknown, type Speaker } from './content-sink.js'
import { isAbsent, isRecord } from './json-values.js'

/**
 * Bind one content part of a Chat Completions message. `text` and an
 * assistant's `refusal` are text; a `file` part's `filename` is text the model
 * sees, its data (base64 or a file id) is media like images and audio. A part
 * type gov does not know is recorded as `unknown` for the content policy.
 */
export function bindOpenAiPart(part: unknown, path: string, speaker: Speaker, sink: ContentSink): void {
  if (!isRecord(part) || typeof part.type !== 'string') {
    throw invalidRequest(path, 'must be an object with a string type')
  }
  switch (part.type) {
    case 'text':
      bindString(part, 'text', path, speaker, sink.parts, true)
      return
    case 'refusal':
      bindString(part, 'refusal', path, speaker, sink.parts, true)
      return
    case 'image_url':
      recordMedia(sink, path, 'image_url')
      return
    case 'input_audio':
      recordMedia(sink, path, 'input_audio')
      return
    case 'file': {
      if (!isRecord(part.file)) throw invalidRequest(`${path}.file`, 'must be an object')
      bindString(part.file, 'filename', `${path}.file`, speaker, sink.parts)
      recordMedia(sink, path, 'file')
      return
    }
    default:
      recordUnknown(sink, path, part.type)
  }
}

/** An assistant message's own `refusal` text and `audio` (a reference to audio gov cannot read). */
export function bindAssistantExtras(
  message: Record<string, unknown>,
  path: string,
  speaker: Speaker,
  sink: ContentSink,
): void {
  bindString(message, 'refusal', path, speaker, sink.parts)
  if (!isAbsent(message.audio)) recordMedia(sink, `${path}.audio`, 'audio')
}
