import { GovError } from '@gov/core'
import { SCAN_SECRETS_ERRORS } from './errors.js'

/**
 * Values the operator declared safe (public demo keys, known test tokens).
 * An entry is either the exact value or a `/regex/flags` matched against the
 * value of each candidate secret.
 */
export class AllowList {
  readonly #exact: Set<string>
  readonly #patterns: RegExp[]

  constructor(entries: readonly string[]) {
    this.#exact = new Set()
    this.#patterns = []
    for (const entry of entries) {
      const regex = /^\/(.+)\/([a-z]*)$/s.exec(entry)
      if (!regex) {
        this.#exact.add(entry)
        continue
      }
      try {
        this.#patterns.push(new RegExp(regex[1], regex[2].replace(/[gy]/g, '')))
      } catch (error) {
        throw new GovError(
          SCAN_SECRETS_ERRORS.ALLOW_LIST_INVALID,
          `allow_list entry is not a valid regular expression: ${(error as Error).message}`,
          400,
          { entry },
        )
      }
    }
  }

  /** True when the value is allowed, i.e. must not be reported. */
  allows(value: string): boolean {
    if (this.#exact.has(value)) return true
    for (const pattern of this.#patterns) if (pattern.test(value)) return true
    return false
  }

  get size(): number {
    return this.#exact.size + this.#patterns.length
  }
}
