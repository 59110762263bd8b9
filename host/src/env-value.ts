/** The setting `name` from `env`, trimmed; undefined when it is unset or blank. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim()
  return v ? v : undefined
}
