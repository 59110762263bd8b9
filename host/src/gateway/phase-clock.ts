/**
 * The phases of the request walk, in the order a call passes them, as
 * `gov_phase_duration_seconds{phase}` labels. Each phase's time is the wall
 * time from entering it to entering the next (a phase entered twice adds up).
 */
export const CALL_PHASES = [
  'auth',
  'policy',
  'parse',
  'route',
  'request_steps',
  'upstream',
  'response_steps',
  'token',
  'audit',
  'write',
] as const

export type CallPhase = (typeof CALL_PHASES)[number]

/** Index of each phase in {@link CALL_PHASES}, for the hot path. */
export const Phase: { readonly [P in CallPhase]: number } = Object.fromEntries(
  CALL_PHASES.map((p, i) => [p, i]),
) as { [P in CallPhase]: number }

/** Where a call's phase times go: one pre-created histogram child per phase, by index. */
export type PhaseTimers = readonly { observe(seconds: number): void }[]

/**
 * Times the phases of one call with one clock read per phase boundary. The
 * call starts in `auth`; {@link end} observes every phase the call entered,
 * once, into its histogram child.
 */
export class PhaseClock {
  readonly #spent: number[] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  #entered = 1
  #current = 0
  #since: number

  constructor(
    private readonly timers: PhaseTimers | undefined,
    started: number,
  ) {
    this.#since = started
  }

  /** Leave the current phase and enter `phase` (an index from {@link Phase}). */
  enter(phase: number): void {
    const now = performance.now()
    this.#spent[this.#current]! += now - this.#since
    this.#since = now
    this.#current = phase
    this.#entered |= 1 << phase
  }

  /** Close the current phase and observe each entered phase's time. Call once. */
  end(): void {
    this.enter(this.#current)
    const timers = this.timers
    if (!timers) return
    for (let i = 0; i < CALL_PHASES.length; i++) {
      if (this.#entered & (1 << i)) timers[i]!.observe(this.#spent[i]! / 1000)
    }
  }

  /** Milliseconds spent in `phase` so far (tests). */
  spentMs(phase: CallPhase): number {
    return this.#spent[Phase[phase]]!
  }
}
