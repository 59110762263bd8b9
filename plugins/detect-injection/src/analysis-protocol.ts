/** Messages between the analysis pool and its worker threads. */
import type { Analysis } from './detector.js'
import type { Channel } from './match-rules.js'

/** A text to analyse, sent to a worker. */
export interface AnalysisRequest {
  readonly id: number
  readonly text: string
  readonly channel: Channel
  readonly decodePayloads: boolean
}

/** A worker's answer: the analysis (offsets into the text it was sent), or why there is none. */
export type AnalysisReply =
  | { readonly id: number; readonly analysis: Analysis }
  | { readonly id: number; readonly error: string }
