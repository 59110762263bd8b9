/**
 * `--name value` arguments read against a table of numeric defaults, for the
 * benchmark's smaller scripts (profile, conversation). Unknown names and bad
 * numbers are errors, so a typo never runs the wrong measurement.
 */
export function parseFlags<T extends Record<string, number>>(argv: readonly string[], defaults: T): T {
  const out: Record<string, number> = { ...defaults }
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!
    const name = flag.replace(/^--/, '')
    const value = argv[i + 1]
    if (!flag.startsWith('--') || !(name in defaults))
      throw new Error(
        `unknown option ${flag}; options: ${Object.keys(defaults)
          .map((k) => `--${k}`)
          .join(' ')}`,
      )
    if (value === undefined) throw new Error(`${flag} needs a value`)
    const n = Number(value)
    if (value.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new Error(`${flag} takes a number ≥ 0, got "${value}"`)
    out[name] = n
  }
  return out as T
}
