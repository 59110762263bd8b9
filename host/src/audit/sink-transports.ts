/**
 * The transports of the audit sinks.
 *
 * Webhook: `POST` of `{"source":"gov","records":[…]}` (records exactly as
 * hashed, in `seq` order) with
 *
 *     x-gov-timestamp: <unix seconds>
 *     x-gov-signature: sha256=<hex HMAC-SHA256(GOV_AUDIT_WEBHOOK_SECRET, "<timestamp>.<body>")>
 *
 * Any 2xx answer is a delivery; anything else (or no answer within the
 * deadline) is retried.
 *
 * Syslog: one RFC 5424 message per record, facility 13 (log audit), severity
 * 6 (info), 4 (warning: blocked) or 3 (error), MSGID the action, the record's
 * JSON as MSG; structured data `[gov seq="…" outcome="…"]`. Over UDP one
 * datagram per message; over TCP octet-counted frames (RFC 6587 §3.4.1) on
 * one connection, re-opened after an error. Written with node:dgram and
 * node:net: the format is a few lines and the npm syslog clients do not frame
 * TCP by octet counting.
 */
import { createHmac } from 'node:crypto'
import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { connect, type Socket } from 'node:net'
import { hostname } from 'node:os'
import type { AuditRecord } from '../storage/store.js'
import type { SinkTransport } from './audit-sink.js'

/** The webhook signature of `body` sent at `timestamp` (unix seconds). */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}

export class WebhookTransport implements SinkTransport {
  readonly name = 'webhook'

  constructor(
    private readonly url: string,
    private readonly secret: string | undefined,
    private readonly timeoutMs: number,
  ) {}

  async deliver(records: readonly AuditRecord[]): Promise<void> {
    const body = JSON.stringify({ source: 'gov', records })
    const timestamp = String(Math.floor(Date.now() / 1000))
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-gov-timestamp': timestamp,
    }
    if (this.secret) headers['x-gov-signature'] = webhookSignature(this.secret, timestamp, body)
    const res = await fetch(this.url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
    })
    await res.body?.cancel().catch(() => {})
    if (res.status < 200 || res.status > 299) throw new Error(`webhook answered HTTP ${res.status}`)
  }
}

const FACILITY_LOG_AUDIT = 13
const HOST = printable(hostname(), 255)

function printable(text: string, max: number): string {
  const clean = text.replace(/[^\x21-\x7e]/g, '_').slice(0, max)
  return clean === '' ? '-' : clean
}

/** SD-PARAM values escape `"`, `\` and `]` (RFC 5424 §6.3.3). */
function sdValue(text: string): string {
  return text.replace(/["\\\]]/g, (c) => `\\${c}`)
}

/**
 * Largest message sent: a UDP datagram holds at most 65,507 bytes. A record
 * whose JSON would pass it (none gov writes comes close) is sent as its
 * `seq`, `id`, `hash` and `truncated: true`, so the SIEM knows to fetch it
 * from `GET /audit/export`, and the sink never retries a message that cannot fit.
 */
export const MAX_SYSLOG_BYTES = 60_000

/** One record as an RFC 5424 message. */
export function syslogMessage(record: AuditRecord, appName = 'gov'): string {
  const severity = record.outcome === 'error' ? 3 : record.outcome === 'blocked' ? 4 : 6
  const pri = FACILITY_LOG_AUDIT * 8 + severity
  const sd = `[gov seq="${record.seq}" outcome="${sdValue(record.outcome)}" hash="${record.hash}"]`
  const head = `<${pri}>1 ${record.time} ${HOST} ${printable(appName, 48)} ${process.pid} ${printable(record.action, 32)} ${sd} `
  const full = head + JSON.stringify(record)
  if (Buffer.byteLength(full) <= MAX_SYSLOG_BYTES) return full
  return head + JSON.stringify({ seq: record.seq, id: record.id, hash: record.hash, truncated: true })
}

export class SyslogTransport implements SinkTransport {
  readonly name = 'syslog'
  readonly #protocol: 'udp' | 'tcp'
  readonly #host: string
  readonly #port: number
  #udp: UdpSocket | undefined
  #tcp: Promise<Socket> | undefined

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    const parsed = new URL(url)
    this.#protocol = parsed.protocol === 'tcp:' ? 'tcp' : 'udp'
    this.#host = parsed.hostname.replace(/^\[|\]$/g, '')
    this.#port = Number(parsed.port)
  }

  async deliver(records: readonly AuditRecord[]): Promise<void> {
    const messages = records.map((r) => Buffer.from(syslogMessage(r)))
    if (this.#protocol === 'udp') {
      this.#udp ??= createSocket(this.#host.includes(':') ? 'udp6' : 'udp4')
      for (const message of messages) {
        await new Promise<void>((resolve, reject) =>
          this.#udp!.send(message, this.#port, this.#host, (err) => (err ? reject(err) : resolve())),
        )
      }
      return
    }
    const socket = await this.#connection()
    const frames = Buffer.concat(messages.flatMap((m) => [Buffer.from(`${m.length} `), m]))
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.destroy(new Error('syslog write timed out'))
      }, this.timeoutMs)
      socket.write(frames, (err) => {
        clearTimeout(timer)
        if (err) {
          this.#tcp = undefined
          reject(err)
        } else resolve()
      })
    })
  }

  #connection(): Promise<Socket> {
    this.#tcp ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: this.#host, port: this.#port })
      socket.setTimeout(this.timeoutMs, () => socket.destroy(new Error('syslog connect timed out')))
      socket.once('connect', () => {
        socket.setTimeout(0)
        resolve(socket)
      })
      socket.on('error', (err) => {
        this.#tcp = undefined
        reject(err)
      })
      socket.on('close', () => {
        this.#tcp = undefined
      })
      // The receiver says nothing back; anything it sends is ignored.
      socket.resume()
    })
    return this.#tcp
  }

  async close(): Promise<void> {
    this.#udp?.close()
    this.#udp = undefined
    const tcp = this.#tcp
    this.#tcp = undefined
    const socket = await tcp?.catch(() => undefined)
    socket?.end()
  }
}
