/**
 * The OpenTelemetry side of {@link CallTracer}. Only `create-call-tracer`
 * imports this module, and only when tracing is on: a gateway without tracing
 * never loads the SDK.
 */
import { createHash } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api'
import { type ExportResult, ExportResultCode, W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base'
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions'
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
} from '@opentelemetry/semantic-conventions/incubating'
import type { StepDecision } from '../chain/chain-runner.js'
import type { CallRecord } from '../gateway/call-record.js'
import type { Logger } from '../logging.js'
import type { Provider } from '../upstream/providers.js'
import { PACKAGE_VERSION } from '../version.js'
import type { CallTrace, CallTracer, UpstreamTrace } from './call-tracer.js'
import type { TracingSettings } from './tracing-settings.js'

/** gov's own span attributes (never prompt text: ids, counts, verdicts, a hash of the session). */
export const GOV_ATTR = {
  requestId: 'gov.request.id',
  vendor: 'gov.vendor',
  agentId: 'gov.agent.id',
  pipelineId: 'gov.pipeline.id',
  pipelineVersion: 'gov.pipeline.version',
  mode: 'gov.mode',
  sessionHash: 'gov.session.hash',
  outcome: 'gov.outcome',
  errorCode: 'gov.error.code',
  classification: 'gov.classification',
  findings: 'gov.findings.count',
  stepsRun: 'gov.steps.run',
  stepName: 'gov.step.name',
  stepPhase: 'gov.step.phase',
  stepVerdict: 'gov.step.verdict',
  stepCode: 'gov.step.code',
  stepEnforced: 'gov.step.enforced',
  stepFindings: 'gov.step.findings',
  upstreamProvider: 'gov.upstream.provider',
} as const

/** The GenAI operation of every governed call (chat completions, messages and responses alike). */
const OPERATION = 'chat'
/** Log an export failure at most this often. */
const EXPORT_WARN_EVERY_MS = 60_000

const propagator = new W3CTraceContextPropagator()

/** `gen_ai.provider.name` of a gov provider (Anthropic's OpenAI-compatible endpoint is still Anthropic). */
function genAiProvider(provider: Provider): string {
  return provider.name === 'anthropic-openai' ? 'anthropic' : provider.name
}

/** A session id as a hash scoped by agent: the same id under two agents gives two hashes. */
function sessionHash(agentId: string, sessionId: string): string {
  return createHash('sha256').update(agentId).update('\0').update(sessionId).digest('hex').slice(0, 32)
}

/** Exports through `inner` and logs a failed export (at most once a minute): the SDK alone would drop it silently. */
class LoggingExporter implements SpanExporter {
  #lastWarn = 0

  constructor(
    private readonly inner: SpanExporter,
    private readonly logger: Logger,
    private readonly url: string,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS && Date.now() - this.#lastWarn > EXPORT_WARN_EVERY_MS) {
        this.#lastWarn = Date.now()
        this.logger.warn(
          { url: this.url, spans: spans.length, err: result.error?.message },
          'tracing: OTLP export failed; spans dropped',
        )
      }
      done(result)
    })
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve()
  }
}

/** Spans of governed calls, batched and sent over OTLP/HTTP (JSON). */
export class OtelCallTracer implements CallTracer {
  readonly #provider: BasicTracerProvider
  readonly #tracer: Tracer

  constructor(settings: TracingSettings, logger: Logger) {
    const exporter = new LoggingExporter(new OTLPTraceExporter({ url: settings.url }), logger, settings.url)
    this.#provider = new BasicTracerProvider({
      resource: resourceFromAttributes({
        [ATTR_SERVICE_NAME]: settings.serviceName,
        [ATTR_SERVICE_VERSION]: PACKAGE_VERSION,
      }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    })
    // Not registered globally: several gateways in one process (tests) each keep their own.
    this.#tracer = this.#provider.getTracer('@gov/host', PACKAGE_VERSION)
  }

  startCall(vendor: string, headers: IncomingHttpHeaders): CallTrace {
    const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter)
    const now = performance.now()
    // One clock for every span of the call, so children lie inside their parent to the microsecond.
    const offset = Date.now() - now
    const span = this.#tracer.startSpan(
      OPERATION,
      {
        kind: SpanKind.SERVER,
        startTime: offset + now,
        attributes: {
          [ATTR_GEN_AI_OPERATION_NAME]: OPERATION,
          [ATTR_HTTP_REQUEST_METHOD]: 'POST',
          [GOV_ATTR.vendor]: vendor,
        },
      },
      parent,
    )
    return new OtelCallTrace(this.#tracer, span, trace.setSpan(parent, span), offset)
  }

  flush(): Promise<void> {
    return this.#provider.forceFlush()
  }

  shutdown(): Promise<void> {
    return this.#provider.shutdown()
  }
}

class OtelCallTrace implements CallTrace {
  #ended = false
  #code: string | undefined

  constructor(
    private readonly tracer: Tracer,
    private readonly span: Span,
    private readonly context: Context,
    /** Epoch milliseconds at `performance.now()` 0, taken once for the call. */
    private readonly offset: number,
  ) {}

  /** Now, in epoch milliseconds on the call's clock. */
  #now(): number {
    return this.offset + performance.now()
  }

  step(decision: StepDecision, startedAt: number, findings: number): void {
    const attributes: Attributes = {
      [GOV_ATTR.stepName]: decision.step,
      [GOV_ATTR.stepPhase]: decision.phase,
      [GOV_ATTR.stepVerdict]: decision.verdict,
      [GOV_ATTR.stepEnforced]: decision.enforced,
      [GOV_ATTR.stepFindings]: findings,
    }
    if (decision.code) attributes[GOV_ATTR.stepCode] = decision.code
    if (decision.error) attributes[ATTR_ERROR_TYPE] = 'step_error'
    const span = this.tracer.startSpan(
      `step ${decision.step}`,
      { kind: SpanKind.INTERNAL, startTime: this.offset + startedAt, attributes },
      this.context,
    )
    // The hook's own message stays in the log and the audit trail: it may quote what it read.
    if (decision.error) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the step failed' })
    span.end(this.offset + startedAt + decision.durationMs)
  }

  upstream(provider: Provider, model: string, headers: Record<string, string>): UpstreamTrace {
    const attributes: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: OPERATION,
      [ATTR_GEN_AI_PROVIDER_NAME]: genAiProvider(provider),
      [ATTR_GEN_AI_SYSTEM]: genAiProvider(provider),
      [ATTR_GEN_AI_REQUEST_MODEL]: model,
      [ATTR_HTTP_REQUEST_METHOD]: 'POST',
      [GOV_ATTR.upstreamProvider]: provider.name,
    }
    if (URL.canParse(provider.baseUrl)) {
      const url = new URL(provider.baseUrl)
      attributes[ATTR_SERVER_ADDRESS] = url.hostname
      attributes[ATTR_SERVER_PORT] = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
    }
    const span = this.tracer.startSpan(
      `${OPERATION} ${model}`,
      { kind: SpanKind.CLIENT, startTime: this.#now(), attributes },
      this.context,
    )
    propagator.inject(trace.setSpan(this.context, span), headers, defaultTextMapSetter)
    const now = () => this.#now()
    return {
      answered(status: number) {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status)
        if (status >= 400) {
          span.setAttribute(ATTR_ERROR_TYPE, String(status))
          span.setStatus({ code: SpanStatusCode.ERROR, message: `the provider answered ${status}` })
        }
        span.end(now())
      },
      failed(err: unknown) {
        const code = (err as { code?: unknown }).code
        span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : 'upstream_error')
        span.setStatus({
          code: SpanStatusCode.ERROR,
          message: err instanceof Error ? err.message : String(err),
        })
        span.end(now())
      },
    }
  }

  refused(code: string): void {
    this.#code = code
  }

  end(rec: CallRecord, status: number, recordCode?: string): void {
    const code = recordCode ?? this.#code
    if (this.#ended) return
    this.#ended = true
    const span = this.span
    const attributes: Attributes = {
      [GOV_ATTR.requestId]: rec.requestId,
      [GOV_ATTR.outcome]: rec.outcome,
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: status,
    }
    const model = rec.exchange?.model
    if (model) {
      span.updateName(`${OPERATION} ${model}`)
      attributes[ATTR_GEN_AI_REQUEST_MODEL] = model
    }
    if (rec.provider) {
      attributes[ATTR_GEN_AI_PROVIDER_NAME] = genAiProvider(rec.provider)
      attributes[ATTR_GEN_AI_SYSTEM] = genAiProvider(rec.provider)
    }
    const answer = rec.answer
    if (answer) {
      if (answer.model) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = answer.model
      if (answer.finishReason) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = [answer.finishReason]
      if (answer.usage?.inputTokens !== undefined)
        attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = answer.usage.inputTokens
      if (answer.usage?.outputTokens !== undefined)
        attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = answer.usage.outputTokens
    }
    const agentId = rec.call?.agentId ?? rec.agent?.agent_id
    if (agentId) attributes[GOV_ATTR.agentId] = agentId
    const call = rec.call
    if (call) {
      if (call.pipelineId) attributes[GOV_ATTR.pipelineId] = call.pipelineId
      if (call.pipelineVersion !== undefined) attributes[GOV_ATTR.pipelineVersion] = call.pipelineVersion
      attributes[GOV_ATTR.mode] = call.mode
      if (call.sessionId) attributes[GOV_ATTR.sessionHash] = sessionHash(call.agentId, call.sessionId)
    }
    if (rec.chain) {
      attributes[GOV_ATTR.classification] = rec.classification
      attributes[GOV_ATTR.findings] = rec.state.findings.length
      attributes[GOV_ATTR.stepsRun] = rec.state.stepsRun.size
    }
    if (code) attributes[GOV_ATTR.errorCode] = code
    if (status >= 500 || rec.outcome === 'error') {
      attributes[ATTR_ERROR_TYPE] = code ?? String(status)
      span.setStatus({ code: SpanStatusCode.ERROR, ...(code ? { message: code } : {}) })
    }
    span.setAttributes(attributes)
    span.end(this.#now())
  }
}
