/**
 * Money amounts in a business context. An amount alone is not confidential (a
 * price in a shopping question, a public list price); an amount next to
 * revenue, margin, valuation, salary, an acquisition price or a quarter is,
 * the more so when the text says it is unreleased or preliminary.
 */

/** A money amount and how strongly its context makes it a business figure. */
export interface FinancialFigure {
  readonly start: number
  readonly end: number
  /** 0..1. */
  readonly score: number
  /** Financial context words seen near the amount (vocabulary, not values). */
  readonly cues: readonly string[]
}

const SYMBOL = String.raw`(?:US\$|USD\s?\$|A\$|C\$|HK\$|S\$|NZ\$|R\$|[$€£¥₹₩₽₺₪₫]|CHF|Fr\.)`
const CODE = `(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|RMB|INR|SEK|NOK|DKK|HKD|SGD|BRL|MXN|KRW|ZAR|NZD|PLN|TRY|ILS)`
const NUMBER = String.raw`\d{1,3}(?:[,.'\u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?`
const SCALE = String.raw`(?:k|m|mm|mn|mln|mio\.?|mrd\.?|b|bn|t|tn|thousand|million|billion|trillion|millions|billions|lakh|crore)`
const CURRENCY_WORD = `(?:dollars?|euros?|pounds?(?: sterling)?|yen|yuan|renminbi|rupees?|francs?|kronor|kroner|krona|bucks)`
/** One money amount: a currency symbol or code before or after a number, with an optional scale. */
export const AMOUNT = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:` +
    String.raw`(?:${SYMBOL}|${CODE})\s?(?:${NUMBER})(?:\s?${SCALE}(?![\p{L}]))?` +
    '|' +
    String.raw`(?:${NUMBER})(?:\s?${SCALE})?\s?(?:${SYMBOL}|${CODE}|${CURRENCY_WORD})` +
    String.raw`)(?![\p{L}\p{N}])`,
  'giu',
)

/** Words that make an amount a business figure on their own. */
const STRONG_CONTEXT =
  /\b(revenues?|turnover|sales|ebitda|ebit|margins?|gross profit|net income|operating income|profits?|losses|earnings|eps|forecasts?|guidance|outlook|projections?|projected|valuations?|valued|pre-money|post-money|salar(?:y|ies)|compensation|bonus(?:es)?|payroll|severance|acquisitions?|acquire|acquiring|purchase price|deal value|deal size|offer price|takeover|buyout|merger|term sheet|funding round|series [a-f]|burn rate|runway|arr|mrr|bookings|backlog|cash flow|capex|opex|dividends?|share price|price per share|contract value|tcv|acv|cost savings|write-?down|impairment|settlement|pay raise|remuneration|umsatz|gewinn|chiffre d'affaires|ingresos)\b/gi
/** Words that hint at a business figure but also fit household money (budgets, invoices, quarters). */
const WEAK_CONTEXT =
  /\b(budget(?:ed)?|invoices?|fiscal|fy\s?\d{2,4}|q[1-4]|h[12]|quarter(?:ly)?|annual results|results|bid|pricing|quota|headcount|funding|raise|raising)\b/gi
/** Words that say the figure is not public yet. */
const UNRELEASED =
  /\b(unreleased|unannounced|not yet (?:public|announced|released)|non-?public|preliminary|draft|internal|confidential|before (?:the )?earnings|ahead of (?:the )?(?:earnings|announcement)|embargo(?:ed)?|mnpi|insider|do not share|under nda|board)\b/i
/** Words of shopping, personal budgets and public prices. */
const CONSUMER =
  /\b(buy|buying|bought|cheap|cheaper|cheapest|discount|coupon|shipping|shop|shopping|amazon|ebay|cart|retail price|msrp|on sale|deal on|afford|worth it|ticket|tickets|rent|subscription|per month|a month|\/mo|monthly plan|laptop|phone|headphones|shoes|tv|groceries|restaurant|hotel|flight|gift|christmas|birthday|recipe|allowance|pocket money)\b/i

const WINDOW_BEFORE = 160
const WINDOW_AFTER = 100

/** The text around `[start, end)`, cut at paragraph breaks. */
function windowAround(text: string, start: number, end: number): string {
  let before = text.slice(Math.max(0, start - WINDOW_BEFORE), start)
  let after = text.slice(end, Math.min(text.length, end + WINDOW_AFTER))
  const breakBefore = before.lastIndexOf('\n\n')
  if (breakBefore >= 0) before = before.slice(breakBefore + 2)
  const breakAfter = after.indexOf('\n\n')
  if (breakAfter >= 0) after = after.slice(0, breakAfter)
  // snake_case keys of tool output ("revenue_q3") hold context words too.
  return `${before} ${after}`.replaceAll('_', ' ')
}

const SCALES: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  lakh: 1e5,
  m: 1e6,
  mm: 1e6,
  mn: 1e6,
  mln: 1e6,
  mio: 1e6,
  million: 1e6,
  millions: 1e6,
  crore: 1e7,
  b: 1e9,
  bn: 1e9,
  mrd: 1e9,
  billion: 1e9,
  billions: 1e9,
  t: 1e12,
  tn: 1e12,
  trillion: 1e12,
}
const DIGITS = /\d[\d,.'\u00a0\u202f]*/
const SCALE_AFTER = /^\s?([a-z]+)/i

/** Rough value of an amount, for weighting; NaN when unreadable. */
function magnitude(amount: string): number {
  const digits = DIGITS.exec(amount)
  if (!digits) return Number.NaN
  const word = SCALE_AFTER.exec(amount.slice(digits.index + digits[0].length))?.[1].toLowerCase() ?? ''
  // Separators are ambiguous (1.200.000 vs 1.2): drop a trailing 1–2 digit fraction, read the rest as digits.
  const whole = digits[0]
    .replace(/[.,'\u00a0\u202f]+$/, '')
    .replace(/[.,]\d{1,2}$/, '')
    .replace(/[^\d]/g, '')
  return Number(whole) * (SCALES[word] ?? 1)
}

/** Score an amount by its context. */
function scoreAmount(text: string, start: number, end: number): { score: number; cues: string[] } {
  const window = windowAround(text, start, end)
  const strong = [...window.matchAll(STRONG_CONTEXT)].map((m) => m[0].toLowerCase())
  const weak = [...window.matchAll(WEAK_CONTEXT)].map((m) => m[0].toLowerCase())
  const cues = [...new Set([...strong, ...weak])]
  let score = 0.25
  if (cues.length) score += (strong.length ? 0.35 : 0.2) + Math.min(0.2, (cues.length - 1) * 0.1)
  if (UNRELEASED.test(window)) score += 0.2
  if (CONSUMER.test(window)) score -= 0.3
  const value = magnitude(text.slice(start, end))
  if (value === 0) score = 0
  else if (value >= 1e6) score += 0.1
  else if (value < 100) score -= 0.1
  return { score: Math.round(Math.min(1, Math.max(0, score)) * 100) / 100, cues: cues.slice(0, 5) }
}

/** The amount pattern tried at one position only: where it matches, the same match as {@link AMOUNT}'s there. */
const AMOUNT_AT = new RegExp(AMOUNT.source, 'iuy')
/** Runs of ASCII digits: every amount's number starts one (`\d` is ASCII-only even with the `u` flag). */
const DIGIT_RUN = /[0-9]+/g
/** How far before its first digit an amount may start: `USD $` and a space. */
const LEAD = 6
/** Past this many digit runs, one pass of {@link AMOUNT} is cheaper than trying each. */
const MAX_DIGIT_RUNS = 32

/**
 * Where an amount may start: not glued to a letter or digit before it (the
 * pattern's look-behind), and not on ASCII whitespace or punctuation other
 * than `$` (no alternative starts with one). A cheap check before a try.
 */
function mayStartAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  if (code < 0x80 && code !== 0x24 && !isAsciiAlnum(code)) return false
  return at === 0 || !isAsciiAlnum(text.charCodeAt(at - 1))
}

function isAsciiAlnum(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a)
}

/**
 * Every match of {@link AMOUNT} in `text`, in order, the same as
 * `text.matchAll(AMOUNT)`: an amount's first digit starts a run of digits and
 * lies at most {@link LEAD} characters after the amount's start, so only those
 * positions are tried (most prose has no digit, or a handful of runs); a text
 * of many digit runs gets the one full pass instead.
 */
export function amountMatches(text: string): RegExpExecArray[] {
  const runs: number[] = []
  DIGIT_RUN.lastIndex = 0
  for (let run = DIGIT_RUN.exec(text); run; run = DIGIT_RUN.exec(text)) {
    if (runs.length === MAX_DIGIT_RUNS) return [...text.matchAll(AMOUNT)]
    runs.push(run.index)
  }
  const matches: RegExpExecArray[] = []
  // Next position that may start a match: positions only grow, so each is tried at most once.
  let at = 0
  for (const digit of runs) {
    at = Math.max(at, digit - LEAD)
    while (at <= digit) {
      if (!mayStartAt(text, at)) {
        at++
        continue
      }
      AMOUNT_AT.lastIndex = at
      const match = AMOUNT_AT.exec(text)
      if (!match) {
        at++
        continue
      }
      matches.push(match)
      at += match[0].length
    }
  }
  return matches
}

/** Every money amount in `text`, scored by context (callers apply their threshold). */
export function findFinancialFigures(text: string): FinancialFigure[] {
  const figures: FinancialFigure[] = []
  for (const match of amountMatches(text)) {
    const start = match.index ?? 0
    const end = start + match[0].length
    figures.push({ start, end, ...scoreAmount(text, start, end) })
  }
  return figures
}
