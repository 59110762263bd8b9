import { GovError } from '@gov/core'
import { envValue } from '../env-value.js'

/** How gov exports its traces; undefined from {@link readTracingSettings} means tracing is off. */
export interface TracingSettings {
  /** The OTLP/HTTP traces endpoint, e.g. `http://collector:4318/v1/traces`. */
  readonly url: string
  /** `service.name` of the resource (`OTEL_SERVICE_NAME`, default `gov`). */
  readonly serviceName: string
}

const DEFAULT_URL = 'http://localhost:4318/v1/traces'

function invalid(message: string): GovError {
  return new GovError('GOV_ERR_CONFIG_INVALID', message, 500)
}

/**
 * Read the tracing settings. Tracing is off unless `GOV_TRACING=otlp`: the
 * standard `OTEL_*` variables alone (set for some other process) never turn it
 * on, and `OTEL_SDK_DISABLED=true` turns it off. The endpoint follows the OTLP
 * exporter rules: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`, else `localhost:4318`.
 * Throws `GOV_ERR_CONFIG_INVALID` for an unknown mode, a bad URL, or a protocol
 * other than `http/json` (the encoding gov sends).
 */
export function readTracingSettings(env: NodeJS.ProcessEnv): TracingSettings | undefined {
  const mode = envValue(env, 'GOV_TRACING')?.toLowerCase()
  if (mode === undefined || mode === 'off') return undefined
  if (mode !== 'otlp') throw invalid(`GOV_TRACING must be "otlp" or "off", got "${env.GOV_TRACING}"`)
  if (envValue(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined

  const protocolName = envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL'
  const protocol = envValue(env, protocolName)
  if (protocol !== undefined && protocol !== 'http/json') {
    throw invalid(
      `${protocolName}=${protocol} is not supported: gov exports OTLP over HTTP as JSON; set it to http/json or unset it`,
    )
  }

  let url = DEFAULT_URL
  let from = 'the default'
  const traces = envValue(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  const base = envValue(env, 'OTEL_EXPORTER_OTLP_ENDPOINT')
  if (traces) {
    url = traces
    from = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  } else if (base) {
    url = `${base.replace(/\/+$/, '')}/v1/traces`
    from = 'OTEL_EXPORTER_OTLP_ENDPOINT'
  }
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw invalid(`${from} must be an http(s) URL, got "${url}"`)
  }
  return { url, serviceName: envValue(env, 'OTEL_SERVICE_NAME') ?? 'gov' }
}
