import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import { loadedGazetteer } from '../src/gazetteer-loader.js'
import plugin, { type PiiStep } from '../src/index.js'
import { withDefaults } from '../src/settings.js'

// Runs in its own process (one file per process), so the gazetteer starts unloaded.
describe('ready()', () => {
  it('create returns at once; the name model loads in ready()', async () => {
    // "At once" is checked by what create did not do (load anything), not by a clock: timings flake on a busy machine.
    const step = (await plugin.create(withDefaults(), makeServices('detect_pii'))) as PiiStep
    assert.equal(loadedGazetteer(), undefined)
    assert.equal(step.entitiesReady, false)
    await step.ready()
    assert.equal(step.entitiesReady, true)
    const ctx = makeRequestContext(makeExchange([{ source: 'user', text: 'Ask Randy Shaw' }]))
    await step.onRequest(ctx)
    assert.deepEqual(
      ctx.findings.map((f) => f.type),
      ['PERSON'],
    )
  })

  it('needs no model when entities are off', async () => {
    const step = (await plugin.create(
      withDefaults({ entities: false }),
      makeServices('detect_pii'),
    )) as PiiStep
    assert.equal(step.entitiesReady, true)
  })
})
