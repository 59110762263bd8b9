import type { GovError, MessageSource, ToolCall } from '@gov/core'
import { TextPart } from '@gov/core'
import { isRecord } from './json-values.js'

/** Builds the error for a malformed field: 400 for a caller's request, 502 for an upstream answer. */
export type FieldError = (field: string, why: string) => GovError

/**
 * Bind one OpenAI tool call (`{id, type: 'function', function: {name, arguments}}`,
 * or a `custom` call with `custom.input`) to a ToolCall whose arguments part
 * writes through to the call object. Returns undefined for call types gov does
 * not know, which pass untouched.
 */
export function bindOpenAiToolCall(
  raw: unknown,
  path: string,
  messageIndex: number,
  source: MessageSource,
  fail: FieldError,
): ToolCall | undefined {
  if (!isRecord(raw)) throw fail(path, 'must be an object')
  if (typeof raw.id !== 'string') throw fail(`${path}.id`, 'must be a string')
  const type = raw.type ?? 'function'
  if (type !== 'function' && type !== 'custom') return undefined
  const holder = raw[type]
  if (!isRecord(holder)) throw fail(`${path}.${type}`, 'must be an object')
  if (typeof holder.name !== 'string') throw fail(`${path}.${type}.name`, 'must be a string')
  const key = type === 'function' ? 'arguments' : 'input'
  if (typeof holder[key] !== 'string') throw fail(`${path}.${type}.${key}`, 'must be a string')
  const part = new TextPart({
    id: `${path}.${type}.${key}`,
    messageIndex,
    source,
    kind: 'tool_arguments',
    holder,
    key,
  })
  return { id: raw.id, name: holder.name, arguments: part }
}

/**
 * Bind the legacy `function_call` (`{name, arguments}`) of an assistant message;
 * it has no call id, so the function name stands in for one.
 */
export function bindOpenAiFunctionCall(
  raw: unknown,
  path: string,
  messageIndex: number,
  source: MessageSource,
  fail: FieldError,
): ToolCall {
  if (!isRecord(raw)) throw fail(path, 'must be an object')
  if (typeof raw.name !== 'string') throw fail(`${path}.name`, 'must be a string')
  if (typeof raw.arguments !== 'string') throw fail(`${path}.arguments`, 'must be a string')
  const part = new TextPart({
    id: `${path}.arguments`,
    messageIndex,
    source,
    kind: 'tool_arguments',
    holder: raw,
    key: 'arguments',
  })
  return { id: raw.name, name: raw.name, arguments: part }
}
