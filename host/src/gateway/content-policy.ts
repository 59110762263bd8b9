import { type Exchange, type Finding, GovError } from '@gov/core'
import { type ContentSettings, DEFAULT_CONTENT_SETTINGS } from '../storage/store.js'

/** The finding type for request content no step could read. */
export const UNSCANNED_CONTENT = 'unscanned_content'
/** Reported as coming from this pseudo-step: the host, not a plugin, decides on unscanned content. */
export const CONTENT_POLICY_STEP = 'content_policy'

/**
 * Apply the pipeline's `content` settings to what the adapter could not turn
 * into text parts (`exchange.unscanned`):
 * - every unscanned item is reported as an `unscanned_content` finding of
 *   level `internal`, carrying its path, kind and type, never its content;
 * - a block type gov does not know is refused with 400 `unsupported_content`
 *   unless `unknown_blocks` is `pass`;
 * - media are refused with 403 `unscanned_content` when `media` is `refuse`.
 * Findings are reported before a refusal, so the audit record of a refused
 * call says what was in it. With `enforce` false (observe mode) nothing is
 * refused; the findings are the same.
 */
export function applyContentPolicy(
  exchange: Pick<Exchange, 'unscanned'>,
  policy: Partial<ContentSettings> | undefined,
  report: (finding: Finding) => void,
  enforce = true,
): void {
  const unscanned = exchange.unscanned ?? []
  if (unscanned.length === 0) return
  const settings = { ...DEFAULT_CONTENT_SETTINGS, ...policy }
  for (const item of unscanned) {
    report({
      step: CONTENT_POLICY_STEP,
      phase: 'request',
      type: UNSCANNED_CONTENT,
      score: 1,
      level: 'internal',
      detail: { path: item.path, kind: item.kind, content_type: item.type },
    })
  }
  if (!enforce) return
  const unknown = unscanned.find((item) => item.kind === 'unknown')
  if (unknown && settings.unknown_blocks !== 'pass') {
    throw new GovError(
      'unsupported_content',
      `${unknown.path} is a content block of type "${unknown.type}" that gov cannot govern; the pipeline's content.unknown_blocks setting must be "pass" to send it`,
      400,
      { path: unknown.path, type: unknown.type },
    )
  }
  const media = unscanned.find((item) => item.kind === 'media')
  if (media && settings.media === 'refuse') {
    throw new GovError(
      UNSCANNED_CONTENT,
      `${media.path} is ${media.type} content gov cannot scan, and this pipeline refuses it (content.media is "refuse")`,
      403,
      { path: media.path, type: media.type },
    )
  }
}
