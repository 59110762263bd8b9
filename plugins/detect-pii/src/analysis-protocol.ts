import type { Detection } from './pii-types.js'

/** A text sent to an analysis worker. */
export interface AnalysisRequest {
  readonly id: number
  readonly text: string
}

/** What an analysis worker sends back: that it can take texts, a text's detections, or why it failed. */
export type WorkerMessage =
  | { readonly kind: 'ready' }
  | { readonly kind: 'result'; readonly id: number; readonly detections: Detection[] }
  | { readonly kind: 'error'; readonly id: number; readonly error: string }
