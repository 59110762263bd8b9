import { GovError } from '@gov/core'
import picomatch from 'picomatch'
import { TRACK_TAINT_ERRORS } from './errors.js'

/** True when a tool name matches. */
export type NameMatcher = (name: string) => boolean

/**
 * Compile tool-name globs once. Tool names are not paths: `bash` makes `*`
 * match any run of characters, `/` included, and `dot` a leading dot.
 */
export function compileGlobs(globs: readonly string[], setting: string): NameMatcher {
  if (globs.length === 0) return () => false
  try {
    const match = picomatch([...globs], { bash: true, dot: true })
    return (name) => match(name)
  } catch (err) {
    throw new GovError(
      TRACK_TAINT_ERRORS.GLOB_INVALID,
      `track_taint: a glob in ${setting} does not compile: ${(err as Error).message}`,
      400,
      { setting },
    )
  }
}
