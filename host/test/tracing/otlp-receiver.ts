import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One span as an OTLP/HTTP JSON export carries it, with its attributes decoded. */
export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string | undefined
  name: string
  /** OTLP span kind: 1 internal, 2 server, 3 client. */
  kind: number
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number
  statusMessage: string | undefined
  startNs: bigint
  endNs: bigint
  attributes: Record<string, unknown>
  resource: Record<string, unknown>
}

/** A local OTLP/HTTP traces endpoint (JSON encoding) that keeps what it is sent. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string
  spans: ReceivedSpan[]
  /** Requests received (path and content type), in order. */
  posts: { path: string; contentType: string | undefined }[]
  close(): Promise<void>
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP AnyValue as JSON
function decodeValue(value: any): unknown {
  if (value === undefined || value === null) return undefined
  if ('stringValue' in value) return value.stringValue
  if ('boolValue' in value) return value.boolValue
  if ('intValue' in value) return Number(value.intValue)
  if ('doubleValue' in value) return value.doubleValue
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(decodeValue)
  return value
}

// biome-ignore lint/suspicious/noExplicitAny: OTLP KeyValue list as JSON
function decodeAttributes(list: any[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const kv of list ?? []) out[kv.key] = decodeValue(kv.value)
  return out
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const posts: OtlpReceiver['posts'] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      posts.push({ path: req.url ?? '', contentType: req.headers['content-type'] })
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end()
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      for (const rs of body.resourceSpans ?? []) {
        const resource = decodeAttributes(rs.resource?.attributes)
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              name: s.name,
              kind: s.kind,
              statusCode: s.status?.code ?? 0,
              statusMessage: s.status?.message,
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
              attributes: decodeAttributes(s.attributes),
              resource,
            })
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    posts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
