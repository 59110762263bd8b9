import { GovError } from '@gov/core'
import picomatch from 'picomatch'
import { FILTER_TOOLS_ERRORS } from './errors.js'

/** True when a tool name matches. */
export type NameMatcher = (name: string) => boolean

/**
 * Compile tool-name globs once. Tool names are not paths: `bash` makes `*`
 * match any run of characters, `/` included (MCP-style names such as
 * `github/create_issue`), and `dot` lets `*` match a leading dot.
 */
export function compileGlobs(globs: readonly string[], setting: string): NameMatcher {
  if (globs.length === 0) return () => false
  try {
    const match = picomatch([...globs], { bash: true, dot: true })
    return (name) => match(name)
  } catch (err) {
    throw new GovError(
      FILTER_TOOLS_ERRORS.GLOB_INVALID,
      `filter_tools: a glob in ${setting} does not compile: ${(err as Error).message}`,
      400,
      { setting },
    )
  }
}
