import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { conversationBody, flatness } from '../src/conversation-model.js'
import { type CpuProfile, packageOf, renderProfile, summariseProfile } from '../src/cpu-profile.js'
import { parseFlags } from '../src/flag-options.js'
import { buildPromptParts, promptText } from '../src/prompts.js'

const ROOT = '/repo'
const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber })

/** Samples at t = 100, 200, 300, 400, 500 (µs after start 0), on nodes 2, 3, 3, 4, 2. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', '') },
    { id: 2, callFrame: frame('scan', 'file:///repo/plugins/detect-pii/dist/src/scan.js', 9) },
    { id: 3, callFrame: frame('sign', 'node:internal/crypto/sig', 142) },
    { id: 4, callFrame: frame('', 'file:///repo/node_modules/@scope/lib/index.js', 0) },
  ],
  startTime: 0,
  endTime: 600,
  samples: [2, 3, 3, 4, 2],
  timeDeltas: [100, 100, 100, 100, 100],
}

describe('cpu profile summary', () => {
  it('names packages: workspaces, node_modules (scoped), built-ins, V8 pseudo-frames', () => {
    assert.equal(packageOf('f', 'file:///repo/host/dist/src/x.js', ROOT), 'host')
    assert.equal(packageOf('f', 'file:///repo/plugins/dedupe/dist/src/x.js', ROOT), 'plugins/dedupe')
    assert.equal(packageOf('f', 'file:///repo/node_modules/undici/lib/a.js', ROOT), 'undici')
    assert.equal(packageOf('f', 'file:///repo/node_modules/@a/b/lib/a.js', ROOT), '@a/b')
    assert.equal(packageOf('f', 'node:internal/streams', ROOT), 'node built-ins')
    assert.equal(packageOf('(garbage collector)', '', ROOT), '(garbage collector)')
    assert.equal(packageOf('writev', '', ROOT), '(native)')
  })

  it('counts each sample until the next one, by function, file and package', () => {
    const s = summariseProfile(profile, ROOT)
    // The last sample has no successor: 4 samples of 100 µs.
    assert.equal(s.samples, 4)
    assert.equal(s.totalMs, 0.4)
    assert.deepEqual(
      s.packages.map((p) => [p.key, p.ms]),
      [
        ['node built-ins', 0.2],
        ['plugins/detect-pii', 0.1],
        ['@scope/lib', 0.1],
      ],
    )
    assert.equal(s.functions[0]!.key, 'sign node:internal/crypto/sig:143')
    assert.equal(s.functions[0]!.share, 0.5)
    assert.ok(s.files.some((f) => f.key === 'plugins/detect-pii/dist/src/scan.js'))
    assert.match(renderProfile(s), /\| `node built-ins` \| 0\.2 \| 50\.0 % \|/)
  })

  it('keeps only the samples inside the window, and says so when the window misses the profile', () => {
    const inside = summariseProfile(profile, ROOT, { window: [150, 350] })
    assert.equal(inside.samples, 2)
    assert.deepEqual(
      inside.packages.map((p) => p.key),
      ['node built-ins'],
    )
    const missed = summariseProfile(profile, ROOT, { window: [10_000, 20_000] })
    assert.equal(missed.windowIgnored, true)
    assert.equal(missed.samples, 4)
  })

  it('refuses a sample that names an unknown node', () => {
    assert.throws(
      () => summariseProfile({ ...profile, samples: [2, 9, 2, 2, 2] }, ROOT),
      /not in the profile/,
    )
  })
})

describe('conversation bodies, flatness and flags', () => {
  const parts = buildPromptParts(8)

  it('resends the history: turn k has the system message, k user turns and k-1 answers', () => {
    const body = JSON.parse(conversationBody(parts, 5, ['a1', 'a2'])) as {
      messages: { role: string; content: string }[]
    }
    assert.deepEqual(
      body.messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'user', 'assistant', 'user'],
    )
    assert.equal(body.messages[1]!.content, promptText(parts, 5))
    assert.equal(body.messages[4]!.content, 'a2')
    assert.equal(body.messages[5]!.content, promptText(parts, 7))
  })

  it('calls samples flat only within ±10 % of the first', () => {
    assert.equal(flatness([100, 105, 95, 109]).flat, true)
    const grown = flatness([100, 104, 111])
    assert.equal(grown.flat, false)
    assert.ok(Math.abs(grown.maxDrift - 0.11) < 1e-9)
    assert.equal(flatness([100, 89]).flat, false)
    assert.throws(() => flatness([100]))
  })

  it('reads numeric flags and refuses unknown names and bad numbers', () => {
    assert.deepEqual(parseFlags(['--turns', '10'], { turns: 50, calls: 3 }), { turns: 10, calls: 3 })
    assert.throws(() => parseFlags(['--turn', '10'], { turns: 50 }), /unknown option/)
    assert.throws(() => parseFlags(['--turns', 'x'], { turns: 50 }), /number/)
    assert.throws(() => parseFlags(['--turns'], { turns: 50 }), /needs a value/)
  })
})
