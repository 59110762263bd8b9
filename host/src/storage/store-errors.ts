/**
 * The coded errors every `Store` kind throws. Both the memory store and the
 * SQL store build them here, so the kinds fail identically (code, status,
 * details) and the management API can answer with `status`.
 */
import { GovError } from '@gov/core'

/** Stable codes of store errors (as named by the store contract and the interface spec). */
export const StoreErrorCodes = {
  /** Duplicate id or key hash, or deleting a pipeline that agents still use. HTTP 409. */
  CONFLICT: 'conflict',
  /** Unknown pipeline or agent id. HTTP 404. */
  NOT_FOUND: 'not_found',
  /** `createAgent` with `seatLimit` agents already present. HTTP 403. */
  SEAT_LIMIT_EXCEEDED: 'seat_limit_exceeded',
} as const

/** A pipeline with this id exists already. */
export function pipelineExistsError(pipelineId: string): GovError {
  return new GovError(StoreErrorCodes.CONFLICT, `pipeline ${pipelineId} already exists`, 409, {
    pipeline_id: pipelineId,
  })
}

/** The pipeline is still assigned to at least one agent. */
export function pipelineInUseError(pipelineId: string): GovError {
  return new GovError(StoreErrorCodes.CONFLICT, `pipeline ${pipelineId} is assigned to agents`, 409, {
    pipeline_id: pipelineId,
  })
}

/** An agent with this id exists already. */
export function agentExistsError(agentId: string): GovError {
  return new GovError(StoreErrorCodes.CONFLICT, `agent ${agentId} already exists`, 409, { agent_id: agentId })
}

/** Another agent holds this key hash. The hash is not echoed back: it identifies a credential. */
export function keyInUseError(): GovError {
  return new GovError(StoreErrorCodes.CONFLICT, 'this API key is already in use', 409, { field: 'key_hash' })
}

/** No pipeline with this id. */
export function unknownPipelineError(pipelineId: string): GovError {
  return new GovError(StoreErrorCodes.NOT_FOUND, `pipeline ${pipelineId} does not exist`, 404, {
    pipeline_id: pipelineId,
  })
}

/** No agent with this id. */
export function unknownAgentError(agentId: string): GovError {
  return new GovError(StoreErrorCodes.NOT_FOUND, `agent ${agentId} does not exist`, 404, {
    agent_id: agentId,
  })
}

/** The licensed number of agents is reached. */
export function seatLimitError(seatLimit: number): GovError {
  return new GovError(StoreErrorCodes.SEAT_LIMIT_EXCEEDED, `seat limit of ${seatLimit} agents reached`, 403, {
    seat_limit: seatLimit,
  })
}
