import { type Static, Type } from '@gov/core'
import { PII_TYPES } from './pii-types.js'

/** Actions, least strict first (the order the caller flag `pii` uses). */
export const ACTIONS = ['allow', 'mask', 'block'] as const
/** One of {@link ACTIONS}. */
export type PiiAction = (typeof ACTIONS)[number]

/** Regions tried, in order, for phone numbers written without a country code. */
export const DEFAULT_PHONE_REGIONS = [
  'US',
  'GB',
  'DE',
  'FR',
  'ES',
  'IT',
  'NL',
  'BE',
  'CH',
  'AT',
  'IN',
  'AU',
  'BR',
]

/**
 * Default size above which a text is analysed off the event loop. Measured on
 * this project's 2-core machine: a 32 KB text dense in personal data costs ~10 ms
 * in-thread, ordinary prose a fraction of that.
 */
export const OFFLOAD_ABOVE_BYTES = 16 * 1024

/** Settings of the `detect_pii` step. Every property has a default, so `{}` is valid. */
export const PiiSettings = Type.Object(
  {
    action: Type.Union([Type.Literal('mask'), Type.Literal('block'), Type.Literal('allow')], {
      default: 'mask',
      description:
        'mask: replace values with session-stable placeholders; block: refuse the call; allow: only report',
    }),
    types: Type.Array(Type.Enum(PII_TYPES), {
      default: [...PII_TYPES],
      uniqueItems: true,
      description: 'Types to detect',
    }),
    min_score: Type.Number({ minimum: 0, maximum: 1, default: 0.5, description: 'Lowest score reported' }),
    block_min_score: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 0,
      description:
        'With action block (set or asked for with the flag pii=block): a name (PERSON, LOCATION, ORGANIZATION) refuses the call only at this score or above; weaker names are masked and restored in the answer instead. Structured findings (e-mail, phone, card, IBAN, SSN, IP, date of birth, address) always refuse. 0: every reported finding refuses',
    }),
    mask_only_types: Type.Array(Type.Enum(PII_TYPES), {
      default: [],
      uniqueItems: true,
      description:
        'With action block: findings of these types never refuse the call; they are masked and restored in the answer instead (e.g. ORGANIZATION: a firm named in a prompt is no personal data of a person)',
    }),
    entities: Type.Boolean({ default: true, description: 'Detect PERSON, LOCATION and ORGANIZATION names' }),
    allow_list: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description:
        'Terms never reported (case-insensitive): a finding whose value is the term, or lies inside it, is dropped',
    }),
    allow_patterns: Type.Array(Type.String({ minLength: 1, maxLength: 500 }), {
      default: [],
      maxItems: 200,
      description:
        'Regular expressions (JavaScript syntax, case-insensitive); a finding whose whole value matches one is dropped',
    }),
    locations: Type.Union([Type.Literal('personal'), Type.Literal('all')], {
      default: 'personal',
      description:
        'personal: report a place only where it locates a person (next to a name, after "I live in"/"born in"/…, or with an address); all: every country, region and city',
    }),
    organizations: Type.Union([Type.Literal('personal'), Type.Literal('all')], {
      default: 'personal',
      description:
        'personal: report an organisation only in a text that also holds personal data (a name, contact detail, identifier, address, date of birth or a place that locates a person); all: every organisation',
    }),
    scan_response: Type.Boolean({ default: true, description: 'Report new personal data in the answer' }),
    session_ttl_seconds: Type.Integer({
      minimum: 60,
      default: 86_400,
      description: 'How long a session keeps its value ↔ placeholder map after its last use (sliding)',
    }),
    phone_regions: Type.Array(Type.String({ pattern: '^[A-Z]{2}$' }), {
      default: DEFAULT_PHONE_REGIONS,
      description: 'Regions tried for national phone numbers',
    }),
    cache_entries: Type.Integer({
      minimum: 0,
      default: 5000,
      description: 'Texts whose analysis is cached per pipeline',
    }),
    offload_above_bytes: Type.Integer({
      minimum: 0,
      default: OFFLOAD_ABOVE_BYTES,
      description:
        'Texts longer than this (UTF-8 bytes) are analysed in a worker thread; 0 keeps all in-thread',
    }),
    offload_threads: Type.Integer({
      minimum: 1,
      maximum: 8,
      default: 1,
      description: 'Worker threads for long texts (each loads its own copy of the name gazetteer)',
    }),
  },
  { additionalProperties: false },
)

/** Validated settings. */
export type PiiSettings = Static<typeof PiiSettings>

/** Settings with every default filled in and `overrides` applied, as the host builds them (for tests and tools). */
export function withDefaults(overrides: Partial<PiiSettings> = {}): PiiSettings {
  const out: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(PiiSettings.properties)) {
    const value = (schema as unknown as { default: unknown }).default
    out[key] = Array.isArray(value) ? [...value] : value
  }
  return { ...(out as PiiSettings), ...overrides }
}
