/**
 * One behaviour suite for every Store kind. Each kind's test file calls
 * {@link describeStoreConformance} with a getter for its store, so memory,
 * PGlite and PostgreSQL are held to the same contract, errors included.
 * Tests share one store per file, so every id carries a per-run tag and list
 * assertions look only at their own records.
 */

import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { it } from 'node:test'
import { GovError } from '@gov/core'
import {
  type AgentRecord,
  DEFAULT_CONTENT_SETTINGS,
  type PipelineInput,
  type Store,
} from '../../src/storage/store.js'
import { StoreErrorCodes } from '../../src/storage/store-errors.js'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Assert that `promise` rejects with a GovError of this code and status. */
export async function assertGovError(
  promise: Promise<unknown>,
  code: string,
  status: number,
): Promise<GovError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}, but the call succeeded`),
    (e: unknown) => e,
  )
  assert.ok(error instanceof GovError, `expected a GovError, got ${String(error)}`)
  assert.equal(error.code, code)
  assert.equal(error.status, status)
  return error
}

/** Register the conformance tests in the current `describe`. */
export function describeStoreConformance(getStore: () => Store): void {
  const tag = randomBytes(4).toString('hex')
  let serial = 0
  const id = (what: string) => `${what}-${tag}-${++serial}`
  const keyHash = () => randomBytes(32).toString('hex')
  const pipelineInput = (pipelineId = id('p')): PipelineInput => ({
    pipeline_id: pipelineId,
    preset: 'standard',
    overrides: { detect_injection: { threshold: 0.7 }, detect_pii: { disabled: true } },
    allow_flags: ['mode'],
  })
  const newAgent = (pipelineId: string | null = null) => {
    const hash = keyHash()
    return {
      agent_id: id('a'),
      key_hash: hash,
      key_prefix: `gov_${hash.slice(0, 4)}`,
      pipeline_id: pipelineId,
    }
  }

  it('answers healthy', async () => {
    assert.equal(await getStore().healthy(), true)
  })

  it('creates a pipeline at version 1 and reads it back', async () => {
    const store = getStore()
    const input = pipelineInput()
    const created = await store.createPipeline(input)
    assert.deepEqual(
      { ...created, created_at: undefined, updated_at: undefined },
      {
        ...input,
        content: DEFAULT_CONTENT_SETTINGS,
        version: 1,
        created_at: undefined,
        updated_at: undefined,
      },
    )
    assert.match(created.created_at, ISO)
    assert.equal(created.updated_at, created.created_at)
    assert.deepEqual(await store.getPipeline(input.pipeline_id), created)
    assert.ok((await store.listPipelines()).some((p) => p.pipeline_id === input.pipeline_id))
  })

  it('stores the content settings create and update set (defaults when absent)', async () => {
    const store = getStore()
    const input = pipelineInput()
    await store.createPipeline({ ...input, content: { media: 'refuse', unknown_blocks: 'refuse' } })
    assert.deepEqual((await store.getPipeline(input.pipeline_id))?.content, {
      media: 'refuse',
      unknown_blocks: 'refuse',
    })
    await store.updatePipeline({ ...input, content: { media: 'pass', unknown_blocks: 'pass' } })
    assert.deepEqual((await store.getPipeline(input.pipeline_id))?.content, {
      media: 'pass',
      unknown_blocks: 'pass',
    })
    await store.updatePipeline(input)
    assert.deepEqual((await store.getPipeline(input.pipeline_id))?.content, DEFAULT_CONTENT_SETTINGS)
  })

  it('round-trips nested, unicode and numeric overrides exactly', async () => {
    const store = getStore()
    const input: PipelineInput = {
      pipeline_id: id('p'),
      preset: 'strict',
      overrides: {
        detect_business: { terms: ['Projekt Ä', '机密', '🚀'], weights: { a: 1.5, b: -2, c: 0 }, on: false },
        filter_tools: { allow: [], nested: { deep: { deeper: null } } },
      },
      allow_flags: [],
    }
    await store.createPipeline(input)
    const read = await store.getPipeline(input.pipeline_id)
    assert.deepEqual(read?.overrides, input.overrides)
    assert.deepEqual(read?.allow_flags, [])
  })

  it('returns copies: changing a returned record does not change the store', async () => {
    const store = getStore()
    const created = await store.createPipeline(pipelineInput())
    created.overrides.detect_injection!.threshold = 0.1
    created.allow_flags.push('pii')
    const read = await store.getPipeline(created.pipeline_id)
    assert.equal(read?.overrides.detect_injection?.threshold, 0.7)
    assert.deepEqual(read?.allow_flags, ['mode'])
  })

  it('answers undefined for unknown ids on reads', async () => {
    const store = getStore()
    assert.equal(await store.getPipeline(id('missing')), undefined)
    assert.equal(await store.getAgent(id('missing')), undefined)
    assert.equal(await store.getAgentByKeyHash(keyHash()), undefined)
  })

  it('rejects a duplicate pipeline id with 409 conflict', async () => {
    const store = getStore()
    const input = pipelineInput()
    await store.createPipeline(input)
    await assertGovError(store.createPipeline({ ...input, preset: 'other' }), StoreErrorCodes.CONFLICT, 409)
    assert.equal((await store.getPipeline(input.pipeline_id))?.preset, 'standard')
  })

  it('updates a pipeline, bumping version and keeping created_at', async () => {
    const store = getStore()
    const created = await store.createPipeline(pipelineInput())
    const first = await store.updatePipeline({
      pipeline_id: created.pipeline_id,
      preset: 'strict',
      overrides: { constrain_output: { max_chars: 10 } },
      allow_flags: ['mode', 'pii'],
    })
    const second = await store.updatePipeline({ ...first, preset: 'standard' })
    assert.equal(first.version, 2)
    assert.equal(second.version, 3)
    assert.equal(second.preset, 'standard')
    assert.deepEqual(second.overrides, { constrain_output: { max_chars: 10 } })
    assert.deepEqual(second.allow_flags, ['mode', 'pii'])
    assert.equal(second.created_at, created.created_at)
    assert.ok(second.updated_at >= created.updated_at)
    assert.deepEqual(await store.getPipeline(created.pipeline_id), second)
  })

  it('rejects updating an unknown pipeline with 404 not_found', async () => {
    await assertGovError(getStore().updatePipeline(pipelineInput()), StoreErrorCodes.NOT_FOUND, 404)
  })

  it('lists pipelines and agents in byte order of their ids, whatever the database locale', async () => {
    const store = getStore()
    const prefix = id('order')
    for (const suffix of ['b', 'B', 'a', 'Z', 'ä'])
      await store.createPipeline(pipelineInput(`${prefix}-${suffix}`))
    const listed = (await store.listPipelines()).map((p) => p.pipeline_id).filter((p) => p.startsWith(prefix))
    assert.deepEqual(
      listed,
      ['B', 'Z', 'a', 'b', 'ä'].map((s) => `${prefix}-${s}`),
    )
    const agentIds = [`${prefix}-y`, `${prefix}-X`]
    for (const agentId of agentIds) await store.createAgent({ ...newAgent(), agent_id: agentId })
    const agents = (await store.listAgents()).map((a) => a.agent_id).filter((a) => a.startsWith(prefix))
    assert.deepEqual(agents, [`${prefix}-X`, `${prefix}-y`])
  })

  it('creates an agent and finds it by id and by key hash', async () => {
    const store = getStore()
    const pipeline = await store.createPipeline(pipelineInput())
    const input = newAgent(pipeline.pipeline_id)
    const created = await store.createAgent(input)
    assert.deepEqual(
      { ...created, created_at: undefined, updated_at: undefined },
      {
        ...input,
        created_at: undefined,
        updated_at: undefined,
      },
    )
    assert.match(created.created_at, ISO)
    assert.deepEqual(await store.getAgent(input.agent_id), created)
    assert.deepEqual(await store.getAgentByKeyHash(input.key_hash), created)
    assert.ok((await store.listAgents()).some((a) => a.agent_id === input.agent_id))
  })

  it('creates an agent without a pipeline', async () => {
    const created = await getStore().createAgent(newAgent(null))
    assert.equal(created.pipeline_id, null)
  })

  it('rejects a duplicate agent id or key hash with 409 conflict', async () => {
    const store = getStore()
    const first = await store.createAgent(newAgent())
    await assertGovError(
      store.createAgent({ ...newAgent(), agent_id: first.agent_id }),
      StoreErrorCodes.CONFLICT,
      409,
    )
    const dupKey = await assertGovError(
      store.createAgent({ ...newAgent(), key_hash: first.key_hash }),
      StoreErrorCodes.CONFLICT,
      409,
    )
    assert.deepEqual(dupKey.details, { field: 'key_hash' })
  })

  it('rejects an agent on an unknown pipeline with 404 not_found and stores nothing', async () => {
    const store = getStore()
    const input = newAgent(id('missing'))
    const error = await assertGovError(store.createAgent(input), StoreErrorCodes.NOT_FOUND, 404)
    assert.deepEqual(error.details, { pipeline_id: input.pipeline_id })
    assert.equal(await store.getAgent(input.agent_id), undefined)
  })

  it('assigns and unassigns a pipeline', async () => {
    const store = getStore()
    const pipeline = await store.createPipeline(pipelineInput())
    const agent = await store.createAgent(newAgent())
    const assigned = await store.assignPipeline(agent.agent_id, pipeline.pipeline_id)
    assert.equal(assigned.pipeline_id, pipeline.pipeline_id)
    assert.equal(assigned.created_at, agent.created_at)
    assert.ok(assigned.updated_at >= agent.updated_at)
    assert.deepEqual(await store.getAgent(agent.agent_id), assigned)
    const unassigned = await store.assignPipeline(agent.agent_id, null)
    assert.equal(unassigned.pipeline_id, null)
  })

  it('rejects assigning to an unknown agent or an unknown pipeline with 404 not_found', async () => {
    const store = getStore()
    const pipeline = await store.createPipeline(pipelineInput())
    const agent = await store.createAgent(newAgent(pipeline.pipeline_id))
    const noAgent = await assertGovError(
      store.assignPipeline(id('missing'), pipeline.pipeline_id),
      StoreErrorCodes.NOT_FOUND,
      404,
    )
    assert.ok(noAgent.details && 'agent_id' in noAgent.details)
    const noPipeline = await assertGovError(
      store.assignPipeline(agent.agent_id, id('missing')),
      StoreErrorCodes.NOT_FOUND,
      404,
    )
    assert.ok(noPipeline.details && 'pipeline_id' in noPipeline.details)
    assert.equal((await store.getAgent(agent.agent_id))?.pipeline_id, pipeline.pipeline_id)
  })

  it('rotates a key: the new hash finds the agent, the old one does not', async () => {
    const store = getStore()
    const agent = await store.createAgent(newAgent())
    const hash = keyHash()
    const rotated = await store.rotateKey(agent.agent_id, hash, 'gov_new1')
    assert.equal(rotated.key_hash, hash)
    assert.equal(rotated.key_prefix, 'gov_new1')
    assert.equal(await store.getAgentByKeyHash(agent.key_hash), undefined)
    assert.deepEqual(await store.getAgentByKeyHash(hash), rotated)
    // The old hash is free again.
    await store.createAgent({ ...newAgent(), key_hash: agent.key_hash })
    // Rotating to the key the agent already holds is not a conflict.
    assert.equal((await store.rotateKey(agent.agent_id, hash, 'gov_new2')).key_prefix, 'gov_new2')
  })

  it('rejects rotating to another agent’s key (409) or for an unknown agent (404)', async () => {
    const store = getStore()
    const first = await store.createAgent(newAgent())
    const second = await store.createAgent(newAgent())
    await assertGovError(store.rotateKey(second.agent_id, first.key_hash, 'x'), StoreErrorCodes.CONFLICT, 409)
    assert.deepEqual(await store.getAgent(second.agent_id), second)
    await assertGovError(store.rotateKey(id('missing'), keyHash(), 'x'), StoreErrorCodes.NOT_FOUND, 404)
  })

  it('deletes an agent and frees its key hash; unknown agent is 404 not_found', async () => {
    const store = getStore()
    const agent = await store.createAgent(newAgent())
    await store.deleteAgent(agent.agent_id)
    assert.equal(await store.getAgent(agent.agent_id), undefined)
    assert.equal(await store.getAgentByKeyHash(agent.key_hash), undefined)
    await store.createAgent({ ...newAgent(), key_hash: agent.key_hash })
    await assertGovError(store.deleteAgent(agent.agent_id), StoreErrorCodes.NOT_FOUND, 404)
  })

  it('refuses to delete a pipeline still assigned (409), deletes it once free, 404 after', async () => {
    const store = getStore()
    const pipeline = await store.createPipeline(pipelineInput())
    const agent = await store.createAgent(newAgent(pipeline.pipeline_id))
    await assertGovError(store.deletePipeline(pipeline.pipeline_id), StoreErrorCodes.CONFLICT, 409)
    assert.ok(await store.getPipeline(pipeline.pipeline_id))
    await store.assignPipeline(agent.agent_id, null)
    await store.deletePipeline(pipeline.pipeline_id)
    assert.equal(await store.getPipeline(pipeline.pipeline_id), undefined)
    await assertGovError(store.deletePipeline(pipeline.pipeline_id), StoreErrorCodes.NOT_FOUND, 404)
  })

  it('enforces the seat limit with 403 seat_limit_exceeded, before checking duplicates', async () => {
    const store = getStore()
    const seats = (await store.listAgents()).length + 1
    const admitted = await store.createAgent(newAgent(), seats)
    const next = newAgent()
    const error = await assertGovError(
      store.createAgent(next, seats),
      StoreErrorCodes.SEAT_LIMIT_EXCEEDED,
      403,
    )
    assert.deepEqual(error.details, { seat_limit: seats })
    assert.equal(await store.getAgent(next.agent_id), undefined)
    // Full seats answer 403 even for a duplicate id, on every kind.
    await assertGovError(
      store.createAgent({ ...newAgent(), agent_id: admitted.agent_id }, seats),
      StoreErrorCodes.SEAT_LIMIT_EXCEEDED,
      403,
    )
    // Without a limit the same agent is admitted.
    await store.createAgent(next)
  })

  it('admits exactly the free seats when agents are created concurrently', async () => {
    const store = getStore()
    // Several rounds: one round of a racy implementation can pass by luck.
    for (let round = 0; round < 4; round++) {
      const before = (await store.listAgents()).length
      const free = 2
      const attempts = Array.from({ length: 10 }, () => newAgent())
      const results = await Promise.allSettled(attempts.map((a) => store.createAgent(a, before + free)))
      const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
      for (const r of refused) assert.equal((r.reason as GovError).code, StoreErrorCodes.SEAT_LIMIT_EXCEEDED)
      assert.equal(results.length - refused.length, free)
      assert.equal((await store.listAgents()).length, before + free)
    }
  })
}

/** Pipeline and agent written before a restart, checked after it. */
export interface DurabilityProbe {
  pipelineId: string
  agent: AgentRecord
}

/** Write a pipeline (updated once) and an agent on it, for {@link assertDurable}. */
export async function writeDurabilityProbe(store: Store): Promise<DurabilityProbe> {
  const tag = randomBytes(4).toString('hex')
  const pipelineId = `durable-${tag}`
  await store.createPipeline({ pipeline_id: pipelineId, preset: 'standard', overrides: {}, allow_flags: [] })
  await store.updatePipeline({
    pipeline_id: pipelineId,
    preset: 'strict',
    overrides: { detect_pii: { threshold: 0.5 } },
    allow_flags: ['pii'],
  })
  const agent = await store.createAgent({
    agent_id: `durable-agent-${tag}`,
    key_hash: randomBytes(32).toString('hex'),
    key_prefix: 'gov_dura',
    pipeline_id: pipelineId,
  })
  return { pipelineId, agent }
}

/** Assert a second store instance sees what {@link writeDurabilityProbe} wrote. */
export async function assertDurable(store: Store, probe: DurabilityProbe): Promise<void> {
  const pipeline = await store.getPipeline(probe.pipelineId)
  assert.equal(pipeline?.version, 2)
  assert.equal(pipeline?.preset, 'strict')
  assert.deepEqual(pipeline?.overrides, { detect_pii: { threshold: 0.5 } })
  assert.deepEqual(await store.getAgentByKeyHash(probe.agent.key_hash), probe.agent)
}
