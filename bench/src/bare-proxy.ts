/**
 * The fastest honest proxy: node:http in front, an undici Pool behind, the
 * request body forwarded as received and the answer piped back. No parsing,
 * no governance. gov is measured against it, so gov's overhead over "just
 * proxying" is what the ratio shows. Run as a process with `BENCH_UPSTREAM`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pipeline } from 'node:stream/promises'
import { Pool } from 'undici'
import { announceReady, closeOnSignal } from './child-protocol.js'

/** Request headers passed upstream; hop-by-hop headers are the proxy's own business. */
const FORWARDED = ['content-type', 'authorization', 'x-api-key', 'anthropic-version', 'accept']

/** A running bare proxy. */
export interface BareProxy {
  url: string
  close(): Promise<void>
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

function forward(pool: Pool) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const body = await readBody(req)
      const headers: Record<string, string> = {}
      for (const name of FORWARDED) {
        const value = req.headers[name]
        if (typeof value === 'string') headers[name] = value
      }
      const upstream = await pool.request({
        method: (req.method ?? 'POST') as 'POST',
        path: req.url ?? '/',
        headers,
        body,
      })
      const type = upstream.headers['content-type']
      res.writeHead(upstream.statusCode, typeof type === 'string' ? { 'content-type': type } : {})
      await pipeline(upstream.body, res)
    } catch (err) {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: String(err) } }))
    }
  }
}

/** Start a bare proxy to `upstream` (an origin) on 127.0.0.1. */
export async function startBareProxy(upstream: string, port = 0): Promise<BareProxy> {
  const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 30_000 })
  const server: Server = createServer(forward(pool))
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await pool.close()
    },
  }
}

if (process.env.BENCH_UPSTREAM) {
  const proxy = await startBareProxy(process.env.BENCH_UPSTREAM)
  closeOnSignal(() => proxy.close())
  announceReady({ url: proxy.url })
}
