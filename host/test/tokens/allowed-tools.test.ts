import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { makeExchange } from '@gov/core/testing'
import { CallState } from '../../src/chain/chain-runner.js'
import { allowedTools, TOOLS_ALLOWED } from '../../src/tokens/allowed-tools.js'

const offered = makeExchange([{ source: 'user', text: 'hi' }], {
  tools: [{ name: 'search' }, { name: 'send_email' }, { name: 'delete_file' }, { name: 'search' }],
})

function stateWith(entries: Record<string, unknown>): CallState {
  const state = new CallState()
  for (const [step, value] of Object.entries(entries)) {
    state.stepsRun.add(step)
    if (value !== undefined) state.stateOf(step).set(TOOLS_ALLOWED, value)
  }
  return state
}

describe('allowedTools', () => {
  it('grants the tools the request offered, each once', () => {
    assert.deepEqual(allowedTools(offered, new CallState()), ['search', 'send_email', 'delete_file'])
  })

  it('grants nothing when no tools were offered', () => {
    assert.deepEqual(allowedTools(makeExchange([{ source: 'user', text: 'hi' }]), new CallState()), [])
  })

  it('narrows to what a step allowed, and intersects several steps', () => {
    assert.deepEqual(allowedTools(offered, stateWith({ filter_tools: ['search', 'send_email'] })), [
      'search',
      'send_email',
    ])
    assert.deepEqual(
      allowedTools(
        offered,
        stateWith({ filter_tools: ['search', 'send_email'], track_taint: new Set(['search']) }),
      ),
      ['search'],
    )
  })

  it('never adds a tool the request did not offer', () => {
    assert.deepEqual(allowedTools(offered, stateWith({ filter_tools: ['search', 'shell'] })), ['search'])
  })

  it('narrows to nothing on a malformed entry', () => {
    assert.deepEqual(allowedTools(offered, stateWith({ filter_tools: 'search' })), [])
  })

  it('ignores steps that set nothing', () => {
    assert.deepEqual(allowedTools(offered, stateWith({ detect_pii: undefined })).length, 3)
  })
})
