import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { PRESETS, startGateway } from '@gov/host'
import { isMap, isScalar, parse, parseDocument, type YAMLMap } from 'yaml'
import type { Answers } from '../src/assess/answers.js'
import {
  recommend,
  UNTRUSTED_INPUT_EXFIL_THRESHOLD,
  UNTRUSTED_INPUT_THRESHOLD,
} from '../src/assess/recommend.js'
import { resolveAnswers } from '../src/assess/resolve-answers.js'
import { terminalAsk } from '../src/assess/terminal-ask.js'
import { runCli } from './helpers/run-cli.js'

/** Step → settings an assessed file may contain; anything else would not validate on import. */
const ALLOWED: Record<string, Record<string, (v: unknown) => boolean>> = {
  detect_injection: {
    threshold: (v) => typeof v === 'number' && v >= 0 && v <= 1,
    tool_result_threshold: (v) => typeof v === 'number' && v >= 0 && v <= 1,
  },
  detect_pii: { action: (v) => v === 'allow' || v === 'mask' || v === 'block' },
  scan_secrets: { action: (v) => v === 'redact' || v === 'block' || v === 'allow' },
}

const PROFILES: Record<string, string[]> = {
  low: [
    '--data',
    'public',
    '--tools',
    'read',
    '--no-untrusted-input',
    '--users',
    'internal',
    '--regulated',
    'none',
  ],
  support: [
    '--data',
    'pii,financial',
    '--tools',
    'external',
    '--untrusted-input',
    '--users',
    'external',
    '--regulated',
    'gdpr',
  ],
  clinic: [
    '--data',
    'pii,health',
    '--tools',
    'write',
    '--no-untrusted-input',
    '--users',
    'internal',
    '--regulated',
    'hipaa',
  ],
  coder: [
    '--data',
    'source_code',
    '--tools',
    'write',
    '--untrusted-input',
    '--users',
    'internal',
    '--regulated',
    'none',
  ],
}

function answers(overrides: Partial<Answers> = {}): Answers {
  return {
    pipelineId: 'p1',
    data: ['public'],
    tools: 'none',
    untrustedInput: false,
    users: 'internal',
    regulated: [],
    ...overrides,
  }
}

/** Check the file against the import shape; returns the `pipeline:` block. */
function checkShape(text: string): {
  pipeline_id: string
  preset: string
  overrides: Record<string, Record<string, unknown>>
} {
  const doc = parse(text) as { version: number; pipeline: Record<string, unknown> }
  assert.equal(doc.version, 1)
  const p = doc.pipeline as {
    pipeline_id: string
    preset: string
    overrides: Record<string, Record<string, unknown>>
    allow_flags: unknown
  }
  assert.match(p.pipeline_id, /^[A-Za-z0-9][A-Za-z0-9._:-]*$/)
  assert.ok(['observe', 'standard', 'strict'].includes(p.preset))
  assert.ok(p.preset in PRESETS)
  assert.equal(typeof p.overrides, 'object')
  assert.deepEqual(p.allow_flags, [])
  for (const [step, settings] of Object.entries(p.overrides)) {
    assert.ok(ALLOWED[step], `unexpected step ${step}`)
    for (const [name, value] of Object.entries(settings)) {
      assert.ok(ALLOWED[step]![name]?.(value), `unexpected ${step}.${name}=${String(value)}`)
    }
  }
  return p
}

describe('gov assess', () => {
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gov-assess-'))
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('writes a file that has the import shape and a comment on every choice', async () => {
    const out = join(dir, 'support.yaml')
    const run = await runCli(['assess', '--pipeline-id', 'support-bot', ...PROFILES.support!, '--out', out])
    assert.equal(run.code, 0, run.stderr)
    const text = await readFile(out, 'utf8')
    const p = checkShape(text)
    assert.equal(p.pipeline_id, 'support-bot')
    assert.equal(p.preset, 'strict')
    assert.equal(p.overrides.detect_injection?.threshold, UNTRUSTED_INPUT_EXFIL_THRESHOLD)
    assert.equal(p.overrides.detect_injection?.tool_result_threshold, UNTRUSTED_INPUT_THRESHOLD)

    const doc = parseDocument(text)
    const pipeline = doc.get('pipeline') as YAMLMap
    // On parse, a comment above the first key of a map belongs to the map itself.
    const commentOf = (map: unknown, key: string) => {
      assert.ok(isMap(map))
      const index = map.items.findIndex((i) => isScalar(i.key) && i.key.value === key)
      assert.ok(index >= 0, `no ${key}`)
      const own = (map.items[index]!.key as { commentBefore?: string }).commentBefore
      return own ?? (index === 0 ? (map.commentBefore ?? '') : '')
    }
    assert.match(commentOf(pipeline, 'preset'), /strict/)
    const overrides = pipeline.get('overrides') as YAMLMap
    for (const [step, settings] of Object.entries(p.overrides)) {
      for (const name of Object.keys(settings)) {
        assert.ok(commentOf(overrides.get(step), name).trim().length > 10, `no reason for ${step}.${name}`)
      }
    }
    assert.match(run.stdout, /pipelines\/import/)
    assert.match(run.stdout, /Bearer \$GOV_ADMIN_API_KEY/)
  })

  it('keeps an existing file unless --force', async () => {
    const out = join(dir, 'existing.yaml')
    await writeFile(out, 'mine\n')
    const refused = await runCli(['assess', '--pipeline-id', 'p', ...PROFILES.low!, '--out', out])
    assert.equal(refused.code, 1)
    assert.match(refused.stderr, /GOV_ERR_ASSESS_FILE_EXISTS/)
    assert.equal(await readFile(out, 'utf8'), 'mine\n')
    const forced = await runCli(['assess', '--pipeline-id', 'p', ...PROFILES.low!, '--out', out, '--force'])
    assert.equal(forced.code, 0, forced.stderr)
    assert.equal(checkShape(await readFile(out, 'utf8')).preset, 'observe')
  })

  it('names every missing flag when it cannot ask', async () => {
    const run = await runCli(['assess', '--data', 'pii', '--out', join(dir, 'never.yaml')])
    assert.equal(run.code, 1)
    assert.match(run.stderr, /GOV_ERR_ASSESS_ANSWER_INVALID/)
    for (const flag of ['--pipeline-id', '--tools', '--untrusted-input', '--users', '--regulated']) {
      assert.ok(run.stderr.includes(flag), `${flag} not named`)
    }
    assert.ok(!run.stderr.includes('--data'))
  })

  it('rejects values outside the lists', async () => {
    const flags = [...PROFILES.low!]
    flags[flags.indexOf('--tools') + 1] = 'teleport'
    const run = await runCli(['assess', '--pipeline-id', 'p', ...flags, '--out', join(dir, 'x.yaml')])
    assert.equal(run.code, 1)
    assert.match(run.stderr, /GOV_ERR_ASSESS_ANSWER_INVALID/)
    const badId = await runCli([
      'assess',
      '--pipeline-id',
      'bad id!',
      ...PROFILES.low!,
      '--out',
      join(dir, 'y.yaml'),
    ])
    assert.equal(badId.code, 1)
    assert.match(badId.stderr, /GOV_ERR_ASSESS_ANSWER_INVALID/)
  })

  it('writes the same file for the same answers', async () => {
    const out = join(dir, 'same.yaml')
    await runCli(['assess', '--pipeline-id', 'same', ...PROFILES.coder!, '--out', out])
    const first = await readFile(out, 'utf8')
    await runCli(['assess', '--pipeline-id', 'same', ...PROFILES.coder!, '--out', out, '--force'])
    assert.equal(await readFile(out, 'utf8'), first)
  })
})

describe('recommend', () => {
  it('observes a low-risk agent and sets no actions', () => {
    const rec = recommend(answers())
    assert.equal(rec.preset.value, 'observe')
    assert.deepEqual(rec.overrides, {})
  })

  it('chooses strict and blocks personal data for PCI and HIPAA', () => {
    for (const reg of ['pci', 'hipaa'] as const) {
      const rec = recommend(answers({ data: ['pii'], regulated: [reg] }))
      assert.equal(rec.preset.value, 'strict')
      assert.equal(rec.overrides.detect_pii?.action.value, 'block')
    }
  })

  it('masks personal data under GDPR on the standard preset', () => {
    const rec = recommend(answers({ data: ['pii'], users: 'external', regulated: ['gdpr'] }))
    assert.equal(rec.preset.value, 'standard')
    assert.equal(rec.overrides.detect_pii?.action.value, 'mask')
    assert.equal(rec.overrides.scan_secrets?.action.value, 'redact')
  })

  it('lowers the tool-result threshold with untrusted input, and the prompt threshold with tools that send data out', () => {
    const reading = recommend(answers({ untrustedInput: true })).overrides.detect_injection
    assert.equal(reading?.tool_result_threshold.value, UNTRUSTED_INPUT_THRESHOLD)
    assert.equal(reading?.threshold, undefined)
    const exfil = recommend(answers({ untrustedInput: true, tools: 'external' }))
    assert.equal(exfil.overrides.detect_injection?.threshold?.value, UNTRUSTED_INPUT_EXFIL_THRESHOLD)
    assert.equal(exfil.overrides.detect_injection?.tool_result_threshold.value, UNTRUSTED_INPUT_THRESHOLD)
    assert.equal(recommend(answers({ users: 'external' })).overrides.detect_injection, undefined)
  })

  it('goes strict for untrusted input + sensitive data + tools that send data out', () => {
    const rec = recommend(answers({ data: ['source_code'], tools: 'external', untrustedInput: true }))
    assert.equal(rec.preset.value, 'strict')
    assert.ok(rec.notes.some((n) => n.includes('filter_tools')))
  })

  it('redacts rather than blocks secrets when credentials are part of the work', () => {
    const rec = recommend(answers({ data: ['credentials'], tools: 'external' }))
    assert.equal(rec.preset.value, 'strict')
    assert.equal(rec.overrides.scan_secrets?.action.value, 'redact')
  })
})

describe('resolveAnswers', () => {
  it('asks for what is missing and asks again after a wrong reply', async () => {
    const replies = ['bot-1', 'pii, nonsense', 'pii,public', 'external', 'maybe', 'yes', 'external', 'none']
    const asked: string[] = []
    const result = await resolveAnswers({}, async (q) => {
      asked.push(q)
      const next = replies.shift()
      assert.ok(next !== undefined, `unexpected question ${q}`)
      return next
    })
    assert.deepEqual(result, {
      pipelineId: 'bot-1',
      data: ['pii', 'public'],
      tools: 'external',
      untrustedInput: true,
      users: 'external',
      regulated: [],
    })
    assert.equal(asked.length, 8)
    assert.match(asked[2]!, /answer with/)
  })

  it('gives up after three wrong replies', async () => {
    await assert.rejects(
      resolveAnswers({ pipelineId: 'p', data: 'pii' }, async () => 'wrong'),
      (err: { code?: string }) => err.code === 'GOV_ERR_ASSESS_ANSWER_INVALID',
    )
  })
})

describe('terminalAsk', () => {
  it('keeps answers typed ahead of their question and stops at the end of input', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    input.end('bot-2\npublic\nread\nno\n')
    const terminal = terminalAsk(input, output)
    try {
      await assert.rejects(
        resolveAnswers({}, terminal.ask),
        (err: { code?: string; constructor: { name: string } }) =>
          err.code === 'GOV_ERR_ASSESS_ANSWER_INVALID' && err.constructor.name === 'InputEndedError',
      )
    } finally {
      terminal.close()
    }
    const asked = output.read()?.toString() ?? ''
    assert.match(asked, /Who talks to it/)
    assert.doesNotMatch(asked, /Regulations/)
  })
})

describe('gov assess → POST /pipelines/import', () => {
  let gateway: Awaited<ReturnType<typeof startGateway>>
  let dir: string
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gov-import-'))
    gateway = await startGateway({
      env: { GOV_PORT: '0', GOV_ADMIN_API_KEY: 'test-admin', LOG_LEVEL: 'silent' },
    })
  })
  after(async () => {
    await gateway?.close()
    await rm(dir, { recursive: true, force: true })
  })

  for (const [name, flags] of Object.entries(PROFILES)) {
    it(`imports the ${name} assessment`, async () => {
      const out = join(dir, `${name}.yaml`)
      const run = await runCli(['assess', '--pipeline-id', `assessed-${name}`, ...flags, '--out', out])
      assert.equal(run.code, 0, run.stderr)
      const expected = checkShape(await readFile(out, 'utf8'))
      const res = await fetch(`${gateway.url}/pipelines/import`, {
        method: 'POST',
        headers: { authorization: 'Bearer test-admin', 'content-type': 'application/yaml' },
        body: await readFile(out),
      })
      const body = (await res.json()) as { pipeline_id: string; preset: string; overrides: unknown }
      assert.equal(res.status, 201, JSON.stringify(body))
      assert.equal(body.pipeline_id, `assessed-${name}`)
      assert.equal(body.preset, expected.preset)
      assert.deepEqual(body.overrides, expected.overrides)
    })
  }
})
