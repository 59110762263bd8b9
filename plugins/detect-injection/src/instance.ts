/**
 * One configured `detect_injection` step: scores every governed text of the
 * request, reports a finding for each that reaches its channel's threshold,
 * and blocks the call when there is one. Texts above `offload_above_bytes`
 * are analysed on a worker thread; the hook then returns a promise.
 */
import type { RequestContext, StepInstance, StepServices, TextPart, Verdict } from '@gov/core'
import { Verdicts } from '@gov/core'
import { AllowList } from './allow-list.js'
import { AnalysisCache } from './analysis-cache.js'
import { AnalysisPool } from './analysis-pool.js'
import type { Analysis, InjectionDetector } from './detector.js'
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

/**
 * True when `text` is longer than `limit` UTF-8 bytes (0: never). Only texts
 * whose length leaves the answer open are measured: a UTF-16 unit is one to
 * three bytes.
 */
export function isLongerThan(text: string, limit: number): boolean {
  if (limit <= 0 || text.length * 3 <= limit) return false
  return text.length > limit || Buffer.byteLength(text, 'utf8') > limit
}

/** A scored text of the request, in order. */
interface Scored {
  readonly part: TextPart
  readonly channel: Channel
  analysis: Analysis | undefined
}

/** The step instance, with its cache and worker pool visible to tests. */
export interface InjectionInstance extends StepInstance {
  readonly cache: AnalysisCache
  /** Undefined when `offload_above_bytes` is 0. */
  readonly pool: AnalysisPool | undefined
  close(): Promise<void>
}

/** Build the step instance. */
export function createInstance(
  settings: InjectionSettings,
  services: StepServices,
  detector: InjectionDetector,
): InjectionInstance {
  const allow = new AllowList(settings.allow_list, settings.allow_patterns)
  const cache = new AnalysisCache(settings.cache_size)
  const offloadAbove = settings.offload_above_bytes
  const pool =
    offloadAbove > 0
      ? new AnalysisPool({ size: settings.offload_workers, logger: services.logger, model: detector.model })
      : undefined
  const detections = services.metrics.counter(
    'gov_injection_detections_total',
    'Texts the detect_injection step scored at or above its threshold',
    ['channel'],
  )
  const options = { decodePayloads: settings.decode_payloads }

  /** Report every text over its threshold and decide the verdict. */
  function decide(ctx: RequestContext, scored: readonly Scored[]): Verdict {
    let blocked: Scored | undefined
    for (const item of scored) {
      const { part, channel } = item
      const analysis = item.analysis as Analysis
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
      blocked ??= item
    }
    if (!blocked) return Verdicts.continue()
    return Verdicts.block(
      INJECTION_DETECTED,
      `prompt injection detected in message ${blocked.part.messageIndex} (${blocked.part.source})`,
      403,
    )
  }

  return {
    cache,
    pool,
    /** Compiles the rules before the first call (once per process; the detector is shared). */
    ready() {
      return detector.warmUp()
    },
    onRequest(ctx: RequestContext): Verdict | Promise<Verdict> {
      const scored: Scored[] = []
      let waiting: Promise<void>[] | undefined
      for (const message of ctx.exchange.messages) {
        for (const part of message.parts) {
          const channel = channelOf(part, settings)
          if (!channel) continue
          // Allowed phrases are blanked (same length, so spans still point into the part).
          const text = allow.empty ? part.text : allow.apply(part.text)
          if (!text.trim()) continue
          const item: Scored = { part, channel, analysis: undefined }
          scored.push(item)
          if (pool && isLongerThan(text, offloadAbove)) {
            const analysed = cache.getAsync(channel, text, () => pool.analyze(text, channel, options))
            waiting ??= []
            waiting.push(
              analysed.then((analysis) => {
                item.analysis = analysis
              }),
            )
            continue
          }
          item.analysis = cache.get(channel, text, () => detector.analyze(text, channel, options))
        }
      }
      // Short texts only: no promise, no extra turn of the event loop.
      if (!waiting) return decide(ctx, scored)
      return Promise.all(waiting).then(() => decide(ctx, scored))
    },
    async close() {
      await pool?.close()
    },
  }
}
