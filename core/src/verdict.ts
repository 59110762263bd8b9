/**
 * Verdicts: what a hook tells the host to do next. They are explicit values,
 * in the manner of Envoy's filter statuses, never booleans or exceptions.
 *
 * | kind       | meaning                                                                   |
 * |------------|---------------------------------------------------------------------------|
 * | `continue` | go on with the next step (edits the step made to text parts stay)         |
 * | `block`    | stop the call; the caller gets an error with `code` and `reason`          |
 * | `respond`  | stop the chain and answer the caller with a ready answer, without (more)  |
 * |            | upstream work — e.g. a de-duplicated call served from a previous answer   |
 *
 * In `observe` mode the host records `block` and `respond` but does not act on them.
 */
export type Verdict = ContinueVerdict | BlockVerdict | RespondVerdict

/** Go on with the next step. */
export interface ContinueVerdict {
  readonly kind: 'continue'
}

/** Stop the call with a coded reason. */
export interface BlockVerdict {
  readonly kind: 'block'
  /** Stable reason code, e.g. `injection_detected`. Returned to the caller. */
  readonly code: string
  /** Human-readable reason, returned to the caller. Never include the sensitive value itself. */
  readonly reason: string
  /** HTTP status for the caller; default 403. */
  readonly status?: number
}

/** Answer the caller with a ready answer. */
export interface RespondVerdict {
  readonly kind: 'respond'
  readonly answer: ReadyAnswer
}

/**
 * A ready answer. Give `text` and the host's vendor adapter builds a complete
 * answer in the caller's format; or give `body`, a complete non-streaming answer
 * body already in the caller's vendor format (`exchange.vendor`), e.g. one cached earlier.
 */
export type ReadyAnswer = { readonly text: string } | { readonly body: Record<string, unknown> }

const CONTINUE: ContinueVerdict = Object.freeze({ kind: 'continue' })

/** Verdict constructors. */
export const Verdicts = {
  /** Go on with the next step. */
  continue(): ContinueVerdict {
    return CONTINUE
  },
  /** Stop the call; the caller gets `status` (default 403) with `code` and `reason`. */
  block(code: string, reason: string, status?: number): BlockVerdict {
    return status === undefined ? { kind: 'block', code, reason } : { kind: 'block', code, reason, status }
  },
  /** Answer the caller with a ready answer and stop the chain. */
  respond(answer: ReadyAnswer): RespondVerdict {
    return { kind: 'respond', answer }
  },
}
