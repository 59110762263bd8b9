import { type Static, Type } from '@gov/core'

/** A classification level setting with its default. */
function level(fallback: 'internal' | 'confidential' | 'restricted') {
  return Type.Union(
    [
      Type.Literal('public'),
      Type.Literal('internal'),
      Type.Literal('confidential'),
      Type.Literal('restricted'),
    ],
    { default: fallback },
  )
}

/** Snake-case name used in placeholders (`<CODE_NAME_1>`) and finding details. */
const NAME_PATTERN = '^[a-z][a-z0-9_]{0,39}$'

/** One business term an admin declares: a code name, a customer, a product, a partner… */
export const TermSchema = Type.Object(
  {
    term: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The term, matched case- and accent-insensitively, whole words',
    }),
    aliases: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      default: [],
      maxItems: 50,
      description: 'Other spellings; they report and mask as the term itself',
    }),
    level: level('confidential'),
    category: Type.String({ pattern: NAME_PATTERN, default: 'term' }),
  },
  { additionalProperties: false },
)

/** One identifier pattern, e.g. customer or contract numbers. */
export const PatternSchema = Type.Object(
  {
    name: Type.String({ pattern: NAME_PATTERN }),
    regex: Type.String({ minLength: 1, maxLength: 200 }),
    level: level('confidential'),
    ignore_case: Type.Boolean({ default: false }),
    whole_word: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
)

/** One extra confidentiality marking on top of the built-in list. */
export const MarkingSchema = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 100 }),
    level: level('confidential'),
    /** `phrase`: unambiguous on its own; `word`: needs position or capitalisation to count. */
    strength: Type.Union([Type.Literal('phrase'), Type.Literal('word')], { default: 'phrase' }),
  },
  { additionalProperties: false },
)

/** Settings of `detect_business`; `{}` is valid and means: built-in markings and financial figures, block restricted. */
export const SettingsSchema = Type.Object(
  {
    terms: Type.Array(TermSchema, { default: [], maxItems: 20_000 }),
    patterns: Type.Array(PatternSchema, { default: [], maxItems: 200 }),
    markings: Type.Boolean({ default: true, description: 'Detect confidentiality markings (built-in list)' }),
    extra_markings: Type.Array(MarkingSchema, { default: [], maxItems: 1000 }),
    marking_min_score: Type.Number({ minimum: 0, maximum: 1, default: 0.5 }),
    financial: Type.Boolean({ default: true, description: 'Detect financial figures in financial context' }),
    financial_min_score: Type.Number({ minimum: 0, maximum: 1, default: 0.5 }),
    financial_level: level('confidential'),
    block_level: Type.Union(
      [
        Type.Literal('internal'),
        Type.Literal('confidential'),
        Type.Literal('restricted'),
        Type.Literal('never'),
      ],
      { default: 'restricted' },
    ),
    action: Type.Union([Type.Literal('report'), Type.Literal('mask')], { default: 'report' }),
    allow_list: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      default: [],
      maxItems: 10_000,
      description:
        'Phrases declared harmless (matched like terms: folded, whole words); a finding inside one is dropped',
    }),
    allow_patterns: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      default: [],
      maxItems: 200,
      description:
        'Regular expressions declared harmless (same safety rules as patterns); a finding inside a match is dropped',
    }),
    cache_size: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 5000 }),
  },
  { additionalProperties: false },
)

/** Validated settings of `detect_business`. */
export type BusinessSettings = Static<typeof SettingsSchema>
/** One declared business term. */
export type BusinessTerm = Static<typeof TermSchema>
/** One declared identifier pattern. */
export type IdentifierPattern = Static<typeof PatternSchema>
/** One extra marking. */
export type ExtraMarking = Static<typeof MarkingSchema>
/** What happens to findings below `block_level`. */
export type BelowBlockAction = BusinessSettings['action']
