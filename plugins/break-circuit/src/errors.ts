/** Block code: the circuit of the call's provider and model is open (503, with `retry-after`). */
export const CIRCUIT_OPEN = 'circuit_open'

/** Finding types, one per decision of the step. */
export const CIRCUIT_FINDINGS = {
  /** A call was refused because the circuit is open or a probe is in flight. */
  REFUSED: 'circuit_open',
  /** Failures reached the threshold: the circuit opened. */
  OPENED: 'circuit_opened',
  /** The open time passed: this call is the half-open probe. */
  PROBE: 'circuit_probe',
  /** The probe succeeded: the circuit closed. */
  CLOSED: 'circuit_closed',
  /** The probe failed: the circuit opened again. */
  REOPENED: 'circuit_reopened',
} as const
