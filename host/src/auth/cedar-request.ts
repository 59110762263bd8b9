import type { EntityJson, TypeAndId } from '@cedar-policy/cedar-wasm/nodejs'
import type { Action, Principal } from './authorizer.js'

/** A Cedar request for one authorization: principal, action, resource and the entities they name. */
export interface CedarRequest {
  readonly principal: TypeAndId
  readonly action: TypeAndId
  readonly resource: TypeAndId
  readonly entities: EntityJson[]
}

/** gov's actions → Cedar action ids (the schema declares them in the empty namespace). */
const CEDAR_ACTIONS: Readonly<Record<Action, string>> = {
  'gateway:call': 'call',
  'admin:read': 'read',
  'admin:write': 'write',
  'metrics:read': 'metrics',
  'secrets:write': 'secrets',
  'audit:read': 'audit',
}

/**
 * API areas with an action of their own: whichever admin action a route asks
 * for there (`admin:write` on `/admin/secrets/invalidate`), Cedar sees that
 * area's action, so a policy about secrets or the audit trail needs no route knowledge.
 */
const AREA_ACTIONS: Readonly<Record<string, string>> = {
  metrics: 'metrics',
  secrets: 'secrets',
  audit: 'audit',
}

/** Actions that always concern one API area, whatever the route. */
const FIXED_AREAS: Partial<Record<Action, string>> = {
  'metrics:read': 'metrics',
  'secrets:write': 'secrets',
  'audit:read': 'audit',
}

/** The resource id of (action, resource): fixed areas win; undefined when one is needed but missing. */
export function resourceOf(action: Action, resource: string | undefined): string | undefined {
  return FIXED_AREAS[action] ?? resource
}

/**
 * Identifies a request for the decision cache: a decision depends on nothing
 * else (the principal's attributes are part of it). The resource comes last,
 * so a model name holding the separator cannot collide with another key.
 */
export function requestKey(principal: Principal, action: Action, resourceId: string): string {
  const who =
    principal.kind === 'agent'
      ? `agent\0${principal.agent.agent_id}\0${principal.agent.pipeline_id ?? ''}`
      : `admin\0${principal.name}\0${principal.role}`
  return `${who}\0${action}\0${resourceId}`
}

/**
 * Build the Cedar request for (principal, action, resource id). Agents are
 * `Gov::Agent::"<agent_id>"` with `pipeline` ("" when unassigned), admins
 * `Gov::Admin::"<name>"` with `role`; a model is `Gov::Model::"<model>"` with
 * `name`, an API area `Gov::Api::"<area>"` with `name`.
 */
export function toCedarRequest(principal: Principal, action: Action, resourceId: string): CedarRequest {
  const principalEntity: EntityJson =
    principal.kind === 'agent'
      ? {
          uid: { type: 'Gov::Agent', id: principal.agent.agent_id },
          attrs: { pipeline: principal.agent.pipeline_id ?? '' },
          parents: [],
        }
      : { uid: { type: 'Gov::Admin', id: principal.name }, attrs: { role: principal.role }, parents: [] }
  const resource = { type: action === 'gateway:call' ? 'Gov::Model' : 'Gov::Api', id: resourceId }
  return {
    principal: principalEntity.uid as TypeAndId,
    action: { type: 'Action', id: cedarAction(action, resourceId) },
    resource,
    entities: [principalEntity, { uid: resource, attrs: { name: resourceId }, parents: [] }],
  }
}

function cedarAction(action: Action, resourceId: string): string {
  if (action === 'gateway:call') return CEDAR_ACTIONS[action]
  return Object.hasOwn(AREA_ACTIONS, resourceId) ? AREA_ACTIONS[resourceId] : CEDAR_ACTIONS[action]
}
