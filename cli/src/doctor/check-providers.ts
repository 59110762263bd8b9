import { lookup } from 'node:dns/promises'
import { connect } from 'node:net'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'
import { withTimeout } from './with-timeout.js'

/** A provider endpoint to probe. */
export interface ProviderTarget {
  name: string
  baseUrl: string
}

function tcpConnect(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port })
    socket.once('connect', () => {
      socket.destroy()
      resolve()
    })
    socket.once('error', (err) => {
      socket.destroy()
      reject(err)
    })
  })
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.')
}

/**
 * Does a provider's base URL parse, does its host resolve and accept a TCP
 * connection? A failure is a warning: the gateway starts anyway, and machines
 * without internet (CI, air-gapped installs) are normal.
 */
export async function checkProvider(
  target: ProviderTarget,
  timeoutMs: number,
  production: boolean,
): Promise<CheckResult> {
  let url: URL
  try {
    url = new URL(target.baseUrl)
  } catch {
    return result(
      'provider',
      target.name,
      'fail',
      `base URL "${target.baseUrl}" does not parse`,
      'GOV_ERR_CONFIG_INVALID',
    )
  }
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const plain = url.protocol === 'http:' && !isLoopback(host)
  try {
    const { address } = await withTimeout(lookup(host), timeoutMs, `DNS for ${host}`)
    await withTimeout(tcpConnect(address, port), timeoutMs, `${host}:${port}`)
    const detail = `${url.origin}${url.pathname} resolves (${address}) and accepts connections`
    if (plain && production) {
      return result(
        'provider',
        target.name,
        'warn',
        `production-unsafe: ${detail}, but over plain http`,
        'GOV_ERR_DOCTOR_PRODUCTION_UNSAFE',
      )
    }
    return result('provider', target.name, 'ok', detail)
  } catch (err) {
    return result(
      'provider',
      target.name,
      'warn',
      `${url.origin}${url.pathname} is not reachable from here (${messageOf(err)}); calls to it will fail until it is`,
      codeOf(err) ?? 'GOV_ERR_DOCTOR_UNREACHABLE',
    )
  }
}
