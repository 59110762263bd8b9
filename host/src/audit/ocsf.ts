/**
 * An audit record as an OCSF-shaped event: the API Activity class (6003,
 * category Application Activity), with gov's own fields under `unmapped.gov`.
 * "OCSF-shaped", not validated against the OCSF schema: the record holds no
 * network addresses, so `src_endpoint` is empty; the shape follows OCSF 1.3.
 */
import type { AuditRecord } from '../storage/store.js'
import { PACKAGE_VERSION } from '../version.js'

export const OCSF_VERSION = '1.3.0'
const API_ACTIVITY = 6003

/** OCSF API Activity `activity_id`: 1 Create, 2 Read, 3 Update, 4 Delete, 99 Other. */
function activityOf(action: string): { id: number; name: string } {
  if (action === 'gateway.call') return { id: 99, name: 'Call' }
  if (action.endsWith('.create') || action.endsWith('.import')) return { id: 1, name: 'Create' }
  if (action.endsWith('.delete')) return { id: 4, name: 'Delete' }
  return { id: 3, name: 'Update' }
}

/** Map one record; `hash` and `prev_hash` travel in `unmapped.gov`, so the chain can still be checked. */
export function toOcsf(record: AuditRecord): Record<string, unknown> {
  const activity = activityOf(record.action)
  const success =
    record.outcome === 'allowed' || record.outcome === 'observed' || record.outcome === 'success'
  const [actorType] = record.actor.split(':', 1)
  return {
    class_uid: API_ACTIVITY,
    class_name: 'API Activity',
    category_uid: 6,
    category_name: 'Application Activity',
    activity_id: activity.id,
    activity_name: activity.name,
    type_uid: API_ACTIVITY * 100 + activity.id,
    type_name: `API Activity: ${activity.name}`,
    time: Date.parse(record.time),
    severity_id: record.outcome === 'blocked' ? 3 : record.outcome === 'error' ? 4 : 1,
    status_id: success ? 1 : 2,
    status: success ? 'Success' : 'Failure',
    status_code: String(record.status),
    status_detail: record.outcome,
    actor: {
      user: {
        uid: record.agent_id ?? record.actor,
        name: record.actor,
        type: actorType === 'agent' ? 'Agent' : actorType === 'admin' ? 'Admin' : 'Other',
      },
      ...(record.session_id === null ? {} : { session: { uid: record.session_id } }),
    },
    api: {
      operation: record.action,
      service: { name: 'gov' },
      ...(record.request_id === null ? {} : { request: { uid: record.request_id } }),
      response: { code: record.status },
    },
    src_endpoint: {},
    metadata: {
      version: OCSF_VERSION,
      uid: record.id,
      sequence: record.seq,
      log_name: 'gov.audit',
      product: { name: 'gov', vendor_name: 'gov', version: PACKAGE_VERSION },
      ...(record.session_id === null ? {} : { correlation_uid: record.session_id }),
    },
    unmapped: {
      gov: {
        kind: record.kind,
        outcome: record.outcome,
        agent_id: record.agent_id,
        session_id: record.session_id,
        pipeline_id: record.pipeline_id,
        pipeline_version: record.pipeline_version,
        token_id: record.token_id,
        classification: record.classification,
        detail: record.detail,
        prev_hash: record.prev_hash,
        hash: record.hash,
      },
    },
  }
}
