import assert from 'node:assert/strict'
import { request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { GovError } from '@gov/core'
import { Router } from '../../src/http/router.js'
import { GovMetrics } from '../../src/metrics/metrics.js'
import { createHttpServer } from '../../src/server.js'

/** GET `path`; resolves with the status and body, or with `destroyed` when the connection was dropped. */
function get(url: string, path: string): Promise<{ status: number; body: string } | 'destroyed'> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      res.on('error', () => resolve('destroyed'))
    })
    req.on('error', () => resolve('destroyed'))
    req.end()
  })
}

describe('Router', () => {
  const metrics = new GovMetrics()
  const router = new Router(metrics)
  let server: Server
  let url: string

  before(async () => {
    router.on('GET', '/sync', (_req, res) => {
      res.end('sync')
    })
    router.on('GET', '/async', async (_req, res) => {
      await Promise.resolve()
      res.end('async')
    })
    router.on('GET', '/throws', () => {
      throw new GovError('bad_thing', 'it throws', 409)
    })
    router.on('GET', '/rejects', async () => {
      await Promise.resolve()
      throw new Error('secret detail')
    })
    router.on('GET', '/rejects-late', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.write('partial')
      await new Promise((resolve) => setTimeout(resolve, 10))
      throw new Error('after the headers')
    })
    server = createHttpServer(router)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  it('runs synchronous and asynchronous handlers', async () => {
    assert.deepEqual(await get(url, '/sync'), { status: 200, body: 'sync' })
    assert.deepEqual(await get(url, '/async'), { status: 200, body: 'async' })
  })

  it('answers a handler that throws synchronously with its coded error', async () => {
    const res = await get(url, '/throws')
    assert.notEqual(res, 'destroyed')
    if (res === 'destroyed') return
    assert.equal(res.status, 409)
    assert.equal(JSON.parse(res.body).error.code, 'bad_thing')
  })

  it('answers a rejected handler with 500 internal_error, not its message', async () => {
    const res = await get(url, '/rejects')
    assert.notEqual(res, 'destroyed')
    if (res === 'destroyed') return
    assert.equal(res.status, 500)
    assert.equal(JSON.parse(res.body).error.code, 'internal_error')
    assert.ok(!res.body.includes('secret detail'))
  })

  it('drops the connection of a handler that fails after its headers went out', async () => {
    assert.equal(await get(url, '/rejects-late'), 'destroyed')
  })

  it('counts requests by route pattern and status once they finish', async () => {
    await get(url, '/sync')
    await get(url, '/nowhere')
    const text = await metrics.registry.metrics()
    assert.match(text, /gov_http_requests_total\{method="GET",path="\/sync",status="200"\} [2-9]/)
    assert.match(text, /gov_http_requests_total\{method="GET",path="\/throws",status="409"\} 1/)
    assert.match(text, /gov_http_requests_total\{method="GET",path="unmatched",status="404"\} 1/)
  })
})
