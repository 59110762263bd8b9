import type { IncomingHttpHeaders } from 'node:http'
import type { StepDecision } from '../chain/chain-runner.js'
import type { CallRecord } from '../gateway/call-record.js'
import type { Logger } from '../logging.js'
import type { Provider } from '../upstream/providers.js'
import { readTracingSettings } from './tracing-settings.js'

/**
 * The seam between the request walk and OpenTelemetry. The gateway holds an
 * optional tracer: when tracing is off there is none, no span is made and the
 * SDK is never loaded (see {@link createCallTracer}).
 */
export interface CallTracer {
  /** Start the span of one governed call, joining the caller's trace when it sends `traceparent`. */
  startCall(vendor: string, headers: IncomingHttpHeaders): CallTrace
  /** Export every finished span now. */
  flush(): Promise<void>
  /** Export what is left and stop. */
  shutdown(): Promise<void>
}

/** The trace of one call, carried on its {@link import('../chain/chain-runner.js').CallState}. */
export interface CallTrace {
  /** One hook call finished (`startedAt` is its `performance.now()`); `findings` it reported. */
  step(decision: StepDecision, startedAt: number, findings: number): void
  /**
   * The upstream request is about to be sent with `headers`: starts its span and
   * writes its `traceparent` into `headers`.
   */
  upstream(provider: Provider, model: string, headers: Record<string, string>): UpstreamTrace
  /** The call is being refused or failed with this gov error code. */
  refused(code: string): void
  /** The call was answered with `status` (`code`: the error code when recording it failed). Ends the span. */
  end(rec: CallRecord, status: number, code?: string): void
}

/** The span of one upstream request. */
export interface UpstreamTrace {
  /** The provider answered with `status`. */
  answered(status: number): void
  /** The request failed before an answer (timeout, reset, the caller left). */
  failed(err: unknown): void
}

/**
 * The tracer the environment asks for, or undefined when tracing is off
 * (`GOV_TRACING` unset or `off`). The OpenTelemetry SDK is imported here, on
 * demand, so a gateway without tracing never loads it.
 */
export async function createCallTracer(
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<CallTracer | undefined> {
  const settings = readTracingSettings(env)
  if (!settings) return undefined
  const { OtelCallTracer } = await import('./otel-call-tracer.js')
  logger.info({ url: settings.url, service: settings.serviceName }, 'tracing: exporting spans over OTLP/HTTP')
  return new OtelCallTracer(settings, logger)
}
