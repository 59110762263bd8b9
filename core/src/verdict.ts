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
 * | `retry`    | (response phase only) ask the provider once more, with `feedback` added   |
 * |            | to the conversation; if this call already retried, act as a `block` with  |
 * |            | `code` and `reason`                                                       |
 *
 * `block` and `respond` may carry response `headers` (e.g. `retry-after`,
 * `x-gov-dedupe`); the host sets them on the answer to the caller.
 * In `observe` mode the host records `block` and `respond` but does not act on them.
 */
export type Verdict = ContinueVerdict | BlockVerdict | RespondVerdict | RetryVerdict

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
  /** Extra response headers, e.g. `retry-after`. */
  readonly headers?: Readonly<Record<string, string>>
}

/** Answer the caller with a ready answer. */
export interface RespondVerdict {
  readonly kind: 'respond'
  readonly answer: ReadyAnswer
  /** Extra response headers, e.g. `x-gov-dedupe: replayed`. */
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * Ask the provider once more (response phase). The host adds the refused
 * answer and `feedback` to the conversation, calls upstream again and runs the
 * response phase on the new answer. A call retries at most once; a second
 * `retry` (or one in the request phase) acts as a block with `code` and `reason`.
 */
export interface RetryVerdict {
  readonly kind: 'retry'
  /** What was wrong, written for the model (never the sensitive value). */
  readonly feedback: string
  readonly code: string
  readonly reason: string
  readonly status?: number
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
  block(
    code: string,
    reason: string,
    status?: number,
    headers?: Readonly<Record<string, string>>,
  ): BlockVerdict {
    return {
      kind: 'block',
      code,
      reason,
      ...(status === undefined ? {} : { status }),
      ...(headers ? { headers } : {}),
    }
  },
  /** Answer the caller with a ready answer and stop the chain. */
  respond(answer: ReadyAnswer, headers?: Readonly<Record<string, string>>): RespondVerdict {
    return headers ? { kind: 'respond', answer, headers } : { kind: 'respond', answer }
  },
  /** Ask the provider once more with `feedback`; a second retry blocks with `code` and `reason`. */
  retry(feedback: string, code: string, reason: string, status?: number): RetryVerdict {
    return status === undefined
      ? { kind: 'retry', feedback, code, reason }
      : { kind: 'retry', feedback, code, reason, status }
  },
}
