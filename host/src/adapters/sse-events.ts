import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { invalidStream } from './adapter-errors.js'

/**
 * Split the complete text of an SSE stream into its events. A last event
 * without its closing blank line still counts: upstreams that close the
 * connection right after the final `data:` line are common.
 */
export function readSseEvents(sse: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = []
  const parser = createParser({
    onEvent: (event) => {
      events.push(event)
    },
  })
  parser.feed(sse)
  parser.feed('\n\n')
  return events
}

/**
 * Parse the JSON `data` of one event; a broken payload means a broken stream.
 * The message never quotes the payload: it is upstream text no step has scanned.
 */
export function parseEventData(data: string): unknown {
  try {
    return JSON.parse(data)
  } catch {
    throw invalidStream(`carries an event whose data (${data.length} characters) is not JSON`)
  }
}

/**
 * Where a re-rendered stream picks up when its start already left (windowed
 * release): the opening events and `text`, the first part of the first text
 * of the answer, were sent; `sequence` is the next Responses `sequence_number`.
 */
export interface StreamResume {
  readonly text: string
  readonly sequence: number
}
