/**
 * One configured `detect_injection` step: scores every governed text of the
 * request, reports a finding for each that reaches its channel's threshold,
 * and blocks the call when there is one.
 */
import type { RequestContext, StepInstance, StepServices, TextPart, Verdict } from '@gov/core'
import { Verdicts } from '@gov/core'
import { AnalysisCache } from './analysis-cache.js'
import type { InjectionDetector } from './detector.js'
import type { Channel } from './match-rules.js'
import type { InjectionSettings } from './settings.js'

/** Block code returned to the caller. */
export const INJECTION_DETECTED = 'injection_detected'
/** Finding type for text written to the model (user, assistant, system). */
export const DIRECT_FINDING = 'prompt_injection'
/** Finding type for text a tool returned. */
export const INDIRECT_FINDING = 'indirect_prompt_injection'

/** Which channel a part is scored on, or undefined when settings say to skip it. */
export function channelOf(part: TextPart, settings: InjectionSettings): Channel | undefined {
  // Tool-call arguments are the model's own output, not input an attacker writes; the
  // attacker's text reaches the model as user text or tool results, which are scored.
  if (part.kind === 'tool_arguments') return undefined
  if (part.kind === 'tool_result' || part.source === 'tool')
    return settings.scan_tool_results ? 'tool' : undefined
  if (part.source === 'system') return settings.scan_system ? 'direct' : undefined
  if (part.source === 'assistant') return settings.scan_assistant ? 'direct' : undefined
  return 'direct'
}

/** Build the step instance. */
export function createInstance(
  settings: InjectionSettings,
  services: StepServices,
  detector: InjectionDetector,
): StepInstance & { readonly cache: AnalysisCache } {
  const cache = new AnalysisCache(settings.cache_size)
  const detections = services.metrics.counter(
    'gov_injection_detections_total',
    'Texts the detect_injection step scored at or above its threshold',
    ['channel'],
  )
  const options = { decodePayloads: settings.decode_payloads }

  return {
    cache,
    onRequest(ctx: RequestContext): Verdict {
      let blocked: { source: string; messageIndex: number } | undefined
      for (const message of ctx.exchange.messages) {
        for (const part of message.parts) {
          const channel = channelOf(part, settings)
          const text = part.text
          if (!channel || !text.trim()) continue
          const analysis = cache.get(channel, text, () => detector.analyze(text, channel, options))
          const threshold = channel === 'tool' ? settings.tool_result_threshold : settings.threshold
          if (analysis.score < threshold) continue
          ctx.report({
            type: channel === 'tool' ? INDIRECT_FINDING : DIRECT_FINDING,
            score: Math.round(analysis.score * 1000) / 1000,
            level: 'internal',
            ...(analysis.span ? { span: { partId: part.id, ...analysis.span } } : {}),
            source: part.source,
            messageIndex: part.messageIndex,
            detail: { signals: analysis.signals, channel, threshold },
          })
          detections.inc({ channel })
          blocked ??= { source: part.source, messageIndex: part.messageIndex }
        }
      }
      if (!blocked) return Verdicts.continue()
      return Verdicts.block(
        INJECTION_DETECTED,
        `prompt injection detected in message ${blocked.messageIndex} (${blocked.source})`,
        403,
      )
    },
  }
}
