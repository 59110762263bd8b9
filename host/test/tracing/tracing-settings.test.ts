import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { startTestGateway } from '../../src/testing/test-gateway.js'
import { readTracingSettings } from '../../src/tracing/tracing-settings.js'

function refused(env: NodeJS.ProcessEnv, message: RegExp): void {
  assert.throws(
    () => readTracingSettings(env),
    (err: unknown) =>
      err instanceof GovError && err.code === 'GOV_ERR_CONFIG_INVALID' && message.test(err.message),
  )
}

describe('readTracingSettings', () => {
  it('is off unless GOV_TRACING=otlp, whatever OTEL_* says', () => {
    assert.equal(readTracingSettings({}), undefined)
    assert.equal(readTracingSettings({ GOV_TRACING: 'off' }), undefined)
    assert.equal(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), undefined)
    assert.equal(readTracingSettings({ GOV_TRACING: 'otlp', OTEL_SDK_DISABLED: 'true' }), undefined)
  })

  it('follows the OTLP endpoint rules and OTEL_SERVICE_NAME', () => {
    assert.deepEqual(readTracingSettings({ GOV_TRACING: 'otlp' }), {
      url: 'http://localhost:4318/v1/traces',
      serviceName: 'gov',
    })
    assert.deepEqual(
      readTracingSettings({
        GOV_TRACING: 'OTLP',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318/',
        OTEL_SERVICE_NAME: 'gov-eu',
      }),
      { url: 'https://collector:4318/v1/traces', serviceName: 'gov-eu' },
    )
    assert.equal(
      readTracingSettings({
        GOV_TRACING: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
      })?.url,
      'http://traces:9999/custom',
    )
  })

  it('refuses an unknown mode, a bad endpoint and a protocol gov does not send', () => {
    refused({ GOV_TRACING: 'jaeger' }, /GOV_TRACING must be "otlp" or "off", got "jaeger"/)
    refused(
      { GOV_TRACING: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    )
    refused(
      { GOV_TRACING: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' },
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/,
    )
    refused(
      { GOV_TRACING: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' },
      /OTEL_EXPORTER_OTLP_PROTOCOL=http\/protobuf is not supported/,
    )
    refused(
      { GOV_TRACING: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
      /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc/,
    )
  })

  it('a gateway with a bad tracing setting does not start', async () => {
    await assert.rejects(
      startTestGateway({ env: { GOV_TRACING: 'yes' } }),
      (err: unknown) => err instanceof GovError && /GOV_TRACING/.test(err.message),
    )
  })
})
