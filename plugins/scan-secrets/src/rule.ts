import type { ClassificationLevel } from '@gov/core'
import type { SecretKind } from './kinds.js'
import type { PlaceholderPolicy } from './placeholder.js'

/** Settings a rule's validator may depend on. */
export interface RuleContext {
  /** Minimum Shannon entropy (bits per character) of a generic assignment value. */
  readonly entropyThreshold: number
}

/** What a validator says about one candidate: drop it, or keep it with a score and optional detail. */
export type RuleVerdict =
  | false
  | { readonly score: number; readonly detail?: Readonly<Record<string, string>> }

/**
 * One detection rule. The scanner runs a rule only on texts that contain one of
 * its `keywords` (a cheap literal prefilter), then runs `pattern`, then checks
 * placeholders, entropy and the rule's own `validate`.
 */
export interface SecretRule {
  /** Stable rule id, reported as `detail.rule` (named after the provider and token type). */
  readonly id: string
  readonly kind: SecretKind
  /** Lower-case literals; at least one must occur in the text for the rule to run. */
  readonly keywords: readonly string[]
  /**
   * Global regex with the `d` flag. The named group `secret` is the span that is
   * reported and redacted; without it the whole match is.
   */
  readonly pattern: RegExp
  /** Confidence of a match that passes every check. */
  readonly score: number
  /** Overrides the kind's classification level for this rule's findings. */
  readonly level?: ClassificationLevel
  /** Minimum Shannon entropy of the secret span. */
  readonly minEntropy?: number
  /** How hard to look for placeholders; `none` for structural rules (PEM blocks). */
  readonly placeholders: PlaceholderPolicy | 'none'
  /** When two findings overlap, the higher priority wins (specific formats beat context rules beat generic). */
  readonly priority: number
  /** Extra checks (checksums, decodable headers, key names); may lower the score. */
  readonly validate?: (secret: string, match: RegExpExecArray, ctx: RuleContext) => RuleVerdict
  /**
   * A cheap necessary condition for rules that would otherwise scan every text:
   * every match of `pattern` is made only of the characters of `chars` (a regex
   * class body of ASCII characters), and only a match of at least `min`
   * characters can pass the rule's checks. The scanner then runs the pattern
   * only where such a run is (same matches, same findings).
   */
  readonly run?: { readonly chars: string; readonly min: number }
}

/** Priorities, highest first. */
export const PRIORITY = { provider: 40, structural: 30, contextual: 20, generic: 10 } as const

/**
 * Characters of the runs a token is found in, for `run` conditions: every
 * character a lone or named token (rules/context.ts) or the vendor tokens that
 * use it may contain. A `run` class may be wider than a rule's own characters.
 */
export const TOKEN_RUN_CHARS = 'A-Za-z0-9_+/~$%^*\\-.!='

/** Characters that may continue a token: a match glued to them is part of something longer. */
const TOKEN_CHAR = 'A-Za-z0-9_\\-'

/** Options shared by the rule builders. */
interface RuleOptions {
  id: string
  kind: SecretKind
  keywords: readonly string[]
  score?: number
  level?: ClassificationLevel
  minEntropy?: number
  placeholders?: PlaceholderPolicy | 'none'
  priority?: number
  validate?: SecretRule['validate']
  run?: SecretRule['run']
}

/**
 * A token with a recognisable shape (usually a vendor prefix), matched anywhere
 * in the text when it stands alone: not glued to other token characters, not
 * inside a base64 run (`+` before it) and not part of a file name (`.` before it).
 */
export function tokenRule(options: RuleOptions & { body: string; ignoreCase?: boolean }): SecretRule {
  const source = `(?<![${TOKEN_CHAR}+.])(?<secret>${options.body})(?![${TOKEN_CHAR}])`
  return build(options, new RegExp(source, `gd${options.ignoreCase ? 'i' : ''}`), PRIORITY.provider, 'basic')
}

/**
 * A structural rule with a hand-written pattern (PEM blocks, URLs, headers).
 * The pattern must name the span to report `secret` when it is not the whole match.
 */
export function patternRule(options: RuleOptions & { pattern: string; flags?: string }): SecretRule {
  return build(options, new RegExp(options.pattern, `gd${options.flags ?? ''}`), PRIORITY.structural, 'basic')
}

/**
 * Between a name and its value, in the notations config files and code use:
 * `=`, `:`, `:=`, `::=`, `?=`, `+=`, `.=`, `=>`, `||`, a call `(`, a CSV or
 * argument `,`, an XML element `>`; quotes (also JSON-escaped) around the
 * name and the value; a YAML block scalar (`|` or `>` then a new line).
 */
const ASSIGN = String.raw`(?:\\{0,2}["'\]]){0,2}[ \t]{0,5}(?:[<>?+.]?=|:{1,3}=|=>|>|:|\(|,|\|\|?)(?:\\{0,2}["']|[\x60\s=|>]){0,5}`
/** What may follow a value: end, whitespace, quote, separator, or a backslash (a JSON escape such as \n). */
const VALUE_END = `(?=$|[\\s\`'",;)\\]}<>&|\\\\])`

/**
 * A vendor key that has no prefix of its own, recognised by the vendor's name in
 * the variable or field it is assigned to (`DATADOG_API_KEY = "…"`,
 * `"oktaApiToken": "…"`). `names` is a regex alternative matched without regard
 * to case unless `namesCaseSensitive`; `value` is matched exactly as written.
 */
export function keyedRule(
  options: RuleOptions & { names: string; value: string; namesCaseSensitive?: boolean },
): SecretRule {
  const source = `(?:${options.names})[ \\t\\w.-]{0,20}?${ASSIGN}(?<secret>${options.value})${VALUE_END}`
  // JS has no inline (?i): match loosely, then hold the value to its exact, case-sensitive shape.
  const exact = options.namesCaseSensitive ? undefined : new RegExp(`^(?:${options.value})$`)
  const validate = options.validate
  return build(
    {
      ...options,
      validate: (secret, match, ctx) => {
        if (exact && !exact.test(secret)) return false
        // A value made only of letters is an identifier (`searchConfluenceUsingCql`), not a key.
        if (/^[A-Za-z_.-]+$/.test(secret)) return false
        return validate ? validate(secret, match, ctx) : { score: options.score ?? 0.9 }
      },
    },
    new RegExp(source, options.namesCaseSensitive ? 'gd' : 'gdi'),
    PRIORITY.provider,
    'basic',
  )
}

function build(
  options: RuleOptions,
  pattern: RegExp,
  priority: number,
  placeholders: PlaceholderPolicy | 'none',
): SecretRule {
  const rule: SecretRule = {
    id: options.id,
    kind: options.kind,
    keywords: options.keywords.map((k) => k.toLowerCase()),
    pattern,
    score: options.score ?? 0.9,
    placeholders: options.placeholders ?? placeholders,
    priority: options.priority ?? priority,
    ...(options.level ? { level: options.level } : {}),
    ...(options.minEntropy !== undefined ? { minEntropy: options.minEntropy } : {}),
    ...(options.validate ? { validate: options.validate } : {}),
    ...(options.run ? { run: options.run } : {}),
  }
  return rule
}
