import { type CallInfo, type ClassificationLevel, type Exchange, isClassificationLevel } from '@gov/core'
import type { JWTPayload } from 'jose'
import type { Chain } from '../chain/chain.js'
import type { CallState } from '../chain/chain-runner.js'

/** What one allowed call grants the agent: the facts a capability token carries. */
export interface CapabilityGrant {
  readonly agentId: string
  readonly sessionId: string | undefined
  /** The agent's pipeline id, or `preset:<name>` for an agent without one. */
  readonly pipeline: string
  readonly pipelineVersion: number
  readonly classification: ClassificationLevel
  /** Tool names offered upstream after every step narrowed them: what the agent may call. */
  readonly tools: readonly string[]
  /** Labels steps granted (e.g. the session's taint: `pii`, `secret`, `untrusted`). */
  readonly labels: readonly string[]
}

/** The claims of a gov capability token, as a tool server sees them after verification. */
export interface CapabilityClaims {
  readonly iss: string
  readonly aud: string | string[]
  /** Agent id. */
  readonly sub: string
  /** Session id, when the caller sent `X-Gov-Session`. */
  readonly sid?: string
  readonly pipeline: string
  readonly pipeline_version: number
  readonly classification: ClassificationLevel
  readonly tools: string[]
  /** Labels steps granted, e.g. the session's taint. Absent in tokens minted before gov 0.2. */
  readonly labels?: string[]
  readonly iat: number
  readonly exp: number
  /** Unique token id; the audit trail records it with the call. */
  readonly jti: string
}

/** No tools or no labels: one shared empty list instead of two new arrays per call. */
const NONE: readonly string[] = Object.freeze([])

/** The grant of a call the pipeline allowed: the tools left after narrowing, the labels steps granted. */
export function grantOf(input: {
  call: CallInfo
  chain: Chain
  exchange: Exchange
  state: CallState
  classification: ClassificationLevel
}): CapabilityGrant {
  const { call, chain } = input
  return {
    agentId: call.agentId,
    sessionId: call.sessionId,
    pipeline: call.pipelineId ?? chain.key,
    pipelineVersion: call.pipelineVersion,
    classification: input.classification,
    tools:
      input.exchange.tools.length === 0 ? NONE : [...new Set(input.exchange.tools.map((tool) => tool.name))],
    labels: input.state.labels.size === 0 ? NONE : [...input.state.labels].sort(),
  }
}

const isString = (value: unknown): value is string => typeof value === 'string' && value.length > 0
const isSeconds = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0

/** The payload as capability claims, or undefined when it lacks their shape (then the token is malformed). */
export function readClaims(payload: JWTPayload): CapabilityClaims | undefined {
  const p = payload as Record<string, unknown>
  const shaped =
    isString(p.iss) &&
    (isString(p.aud) || (Array.isArray(p.aud) && p.aud.every(isString))) &&
    isString(p.sub) &&
    (p.sid === undefined || isString(p.sid)) &&
    isString(p.pipeline) &&
    Number.isInteger(p.pipeline_version) &&
    isClassificationLevel(p.classification) &&
    Array.isArray(p.tools) &&
    p.tools.every((tool) => typeof tool === 'string') &&
    (p.labels === undefined || (Array.isArray(p.labels) && p.labels.every((l) => typeof l === 'string'))) &&
    isSeconds(p.iat) &&
    isSeconds(p.exp) &&
    isString(p.jti)
  return shaped ? (p as unknown as CapabilityClaims) : undefined
}
