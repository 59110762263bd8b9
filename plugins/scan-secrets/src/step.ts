import {
  GovError,
  type HookContext,
  type RequestContext,
  type ResponseContext,
  type StepCounter,
  type StepInstance,
  type StepServices,
  type TextPart,
  type Verdict,
  Verdicts,
} from '@gov/core'
import { AllowList } from './allow-list.js'
import { AnalysisCache } from './analysis-cache.js'
import { SCAN_SECRETS_ERRORS, SECRET_DETECTED } from './errors.js'
import { isSecretKind, type SecretKind } from './kinds.js'
import { redactJsonText, redactText } from './redact.js'
import { ALL_RULES } from './rules/index.js'
import { SecretScanner } from './scanner.js'
import { ACTIONS, type ScanSecretsSettings, type SecretAction } from './settings.js'

/** Caller flag (`X-Gov-Flags: secrets=block`) that overrides `action` for one call. */
export const ACTION_FLAG = 'secrets'

/**
 * One configured scan_secrets step. Scans every text part of the request
 * (system prompt, user and assistant turns, tool results, earlier tool-call
 * arguments) and of the answer (text and tool-call arguments), reports one
 * finding per secret, and redacts, blocks or only reports.
 */
export class ScanSecretsStep implements StepInstance {
  readonly #settings: ScanSecretsSettings
  readonly #cache: AnalysisCache
  readonly #detections: StepCounter

  constructor(settings: ScanSecretsSettings, services: StepServices) {
    this.#settings = settings
    const kinds: Partial<Record<SecretKind, boolean>> = {}
    for (const [kind, on] of Object.entries(settings.kinds ?? {})) {
      if (!isSecretKind(kind)) {
        throw new GovError(SCAN_SECRETS_ERRORS.UNKNOWN_KIND, `scan_secrets: unknown kind '${kind}'`, 400, {
          kind,
        })
      }
      if (on !== undefined) kinds[kind] = on
    }
    const scanner = new SecretScanner({
      rules: ALL_RULES,
      kinds,
      entropyThreshold: settings.entropy_threshold,
      allowList: new AllowList(settings.allow_list ?? [], settings.allow_patterns ?? []),
      minScore: settings.min_score,
    })
    this.#cache = new AnalysisCache(scanner, settings.cache_entries)
    this.#detections = services.metrics.counter(
      'gov_secret_detections_total',
      'Secrets found by the scan_secrets step, by kind and phase',
      ['kind', 'phase'],
    )
  }

  /** Texts scanned so far (cache misses). */
  get scannedTexts(): number {
    return this.#cache.scans
  }

  onRequest(ctx: RequestContext): Verdict {
    const kinds = new Set<string>()
    const action = this.#action(ctx)
    for (const message of ctx.exchange.messages) {
      for (const part of message.parts) this.#governPart(ctx, part, action, kinds)
    }
    return this.#verdict(action, kinds, 'the request')
  }

  onBufferedResponse(ctx: ResponseContext): Verdict {
    const kinds = new Set<string>()
    const action = this.#action(ctx)
    for (const part of ctx.answer.message.parts) this.#governPart(ctx, part, action, kinds)
    return this.#verdict(action, kinds, 'the model answer')
  }

  close(): void {
    this.#cache.clear()
  }

  #action(ctx: HookContext): SecretAction {
    const flag = ctx.call.flags.get(ACTION_FLAG)
    return flag && (ACTIONS as readonly string[]).includes(flag)
      ? (flag as SecretAction)
      : this.#settings.action
  }

  #governPart(ctx: HookContext, part: TextPart, action: SecretAction, kinds: Set<string>): void {
    const text = part.text
    if (!text) return
    const detections = this.#cache.analyze(text)
    if (!detections.length) return
    for (const d of detections) {
      kinds.add(d.kind)
      this.#detections.inc({ kind: d.kind, phase: ctx.phase })
      ctx.report({
        type: d.kind,
        score: d.score,
        level: d.level,
        span: { partId: part.id, start: d.start, end: d.end },
        source: part.source,
        messageIndex: part.messageIndex,
        detail: { rule: d.rule, action, ...d.detail },
      })
    }
    if (action !== 'redact') return
    part.text = looksLikeJson(part, text)
      ? redactJsonText(text, detections, (value) => this.#cache.analyze(value))
      : redactText(text, detections)
  }

  #verdict(action: SecretAction, kinds: Set<string>, where: string): Verdict {
    if (action !== 'block' || kinds.size === 0) return Verdicts.continue()
    return Verdicts.block(SECRET_DETECTED, `${where} contains secrets: ${[...kinds].sort().join(', ')}`, 403)
  }
}

/** Tool-call arguments are JSON by contract; tool results and messages often are. */
function looksLikeJson(part: TextPart, text: string): boolean {
  return part.kind === 'tool_arguments' || /^\s*[{[]/.test(text)
}
