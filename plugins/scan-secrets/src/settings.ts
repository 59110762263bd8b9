import { type Static, Type } from '@gov/core'
import { SECRET_KIND_IDS, SECRET_KINDS } from './kinds.js'

/** What the step does with a secret it finds. */
export const ACTIONS = ['allow', 'redact', 'block'] as const

/** One of {@link ACTIONS}, least strict first. */
export type SecretAction = (typeof ACTIONS)[number]

const kindSwitches = Object.fromEntries(
  SECRET_KIND_IDS.map((kind) => [
    kind,
    Type.Optional(Type.Boolean({ description: SECRET_KINDS[kind].label })),
  ]),
)

/** Settings of the scan_secrets step. `{}` is valid: every property has a default. */
export const ScanSecretsSettingsSchema = Type.Object(
  {
    action: Type.Union([Type.Literal('allow'), Type.Literal('redact'), Type.Literal('block')], {
      default: 'redact',
      description:
        'redact: replace each secret with [REDACTED:<kind>]; block: refuse the call (secret_detected, 403); allow: report only',
    }),
    kinds: Type.Object(kindSwitches, {
      additionalProperties: false,
      default: {},
      description: 'Kinds to switch off (false) or on (true); unlisted kinds are on',
    }),
    entropy_threshold: Type.Number({
      minimum: 0,
      maximum: 8,
      default: 3.5,
      description:
        'Minimum Shannon entropy (bits/char) of a generic secret value; scaled down for short values',
    }),
    allow_list: Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
      default: [],
      maxItems: 10000,
      description:
        'Secret values never reported (a public demo key, a known test token): exact values; an entry written /regex/flags is a pattern',
    }),
    allow_patterns: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      default: [],
      maxItems: 200,
      description:
        'Regular expressions tested against each secret value; a match silences the finding (anchor with ^…$ for whole values). Refused at load when invalid, nested (a+)+ or matching the empty string',
    }),
    min_score: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description: 'Findings scored below this are ignored (0.55: tokens whose provider checksum fails)',
    }),
    cache_entries: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 4096,
      description: 'Texts whose analysis is kept (LRU)',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings (the host fills defaults). */
export type ScanSecretsSettings = Static<typeof ScanSecretsSettingsSchema>

/**
 * Settings with every default of the schema filled in, then `overrides` on top
 * (the host does the same from the schema; tests, eval and benchmarks use this).
 */
export function resolveSettings(overrides: Partial<ScanSecretsSettings> = {}): ScanSecretsSettings {
  const defaults = Object.fromEntries(
    Object.entries(ScanSecretsSettingsSchema.properties).map(([key, schema]) => [
      key,
      structuredClone((schema as unknown as { default: unknown }).default),
    ]),
  ) as ScanSecretsSettings
  return { ...defaults, ...overrides }
}
