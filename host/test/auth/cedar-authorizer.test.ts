import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { ADMIN, AUDITOR } from '../../src/auth/admin-credentials.js'
import type { Action } from '../../src/auth/authorizer.js'
import { CedarAuthorizer } from '../../src/auth/cedar-authorizer.js'
import { PolicyErrorCodes, type PolicyLoadError } from '../../src/auth/policy-errors.js'
import { agent, capturedLogger, flushLogs, INTERN_POLICY, policyDir } from './policy-fixtures.js'

const ADMIN_ACTIONS: [Action, string | undefined][] = [
  ['admin:read', 'pipelines'],
  ['admin:read', 'agents'],
  ['admin:write', 'pipelines'],
  ['admin:write', 'agents'],
  ['admin:write', 'policy'],
  ['metrics:read', undefined],
  ['secrets:write', undefined],
  ['audit:read', undefined],
]

describe('CedarAuthorizer', () => {
  const dir = policyDir()
  after(() => dir.remove())

  describe('with the shipped default policy', () => {
    const { logger } = capturedLogger()
    const authz = new CedarAuthorizer({ logger })

    it('loads and names its policies', () => {
      assert.equal(authz.loaded, true)
      assert.deepEqual(authz.report?.policies, ['agents-call', 'admin-all', 'auditor-read'])
      assert.deepEqual(authz.report?.warnings, [])
    })

    it('lets agents call any model, with or without a pipeline', () => {
      const d = authz.decide(agent('bot'), 'gateway:call', 'gpt-4o')
      assert.deepEqual([d.allowed, d.code, d.policies], [true, 'allowed', ['agents-call']])
      assert.equal(authz.authorize(agent('bot', 'support'), 'gateway:call', 'claude-sonnet-4-6'), true)
    })

    it('keeps agents off every admin action', () => {
      for (const [action, area] of ADMIN_ACTIONS) {
        assert.equal(authz.decide(agent('bot'), action, area).code, 'forbidden', action)
      }
    })

    it('lets the admin do everything on the management API, but not call models', () => {
      for (const [action, area] of ADMIN_ACTIONS)
        assert.equal(authz.authorize(ADMIN, action, area), true, action)
      assert.equal(authz.authorize(ADMIN, 'gateway:call', 'gpt-4o'), false)
    })

    it('lets the auditor read, read metrics and read the audit trail, and nothing else', () => {
      for (const [action, area] of ADMIN_ACTIONS) {
        const expected = action === 'admin:read' || action === 'metrics:read' || action === 'audit:read'
        assert.equal(authz.authorize(AUDITOR, action, area), expected, `${action} ${area}`)
      }
    })

    it('denies an admin action without an API area', () => {
      const d = authz.decide(ADMIN, 'admin:read')
      assert.equal(d.allowed, false)
      assert.equal(d.code, 'forbidden')
    })
  })

  it('restricts one agent to some models with a forbid … unless policy', () => {
    const authz = new CedarAuthorizer({
      logger: capturedLogger().logger,
      file: dir.write('intern.cedar', INTERN_POLICY),
    })
    assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o-mini'), true)
    assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o-mini-2024-07-18'), true)
    const denied = authz.decide(agent('intern-bot'), 'gateway:call', 'gpt-4o')
    assert.deepEqual(
      [denied.allowed, denied.code, denied.policies],
      [false, 'forbidden', ['intern-small-models']],
    )
    assert.equal(authz.authorize(agent('other-bot'), 'gateway:call', 'gpt-4o'), true)
  })

  it('gives the metrics, secrets and audit areas their own Cedar action, whatever the route asked', () => {
    const file = dir.write(
      'areas.cedar',
      `permit (principal == Gov::Admin::"admin", action == Action::"secrets", resource);
       permit (principal == Gov::Admin::"admin", action == Action::"audit", resource == Gov::Api::"audit");`,
    )
    const authz = new CedarAuthorizer({ logger: capturedLogger().logger, file })
    assert.equal(authz.authorize(ADMIN, 'secrets:write'), true)
    assert.equal(authz.authorize(ADMIN, 'admin:write', 'secrets'), true, '/admin/secrets/invalidate')
    assert.equal(authz.authorize(ADMIN, 'admin:read', 'audit'), true, '/audit')
    assert.equal(
      authz.authorize(ADMIN, 'audit:read', 'pipelines'),
      true,
      'audit:read is always the audit area',
    )
    assert.equal(authz.authorize(ADMIN, 'admin:write', 'pipelines'), false)
    assert.equal(authz.authorize(ADMIN, 'admin:read', 'tokens'), false)
  })

  it('decides on the agent pipeline attribute ("" when unassigned)', () => {
    const file = dir.write(
      'pipeline.cedar',
      'permit (principal is Gov::Agent, action == Action::"call", resource) when { principal.pipeline == "support" };',
    )
    const authz = new CedarAuthorizer({ logger: capturedLogger().logger, file })
    assert.equal(authz.authorize(agent('a', 'support'), 'gateway:call', 'gpt-4o'), true)
    assert.equal(authz.authorize(agent('a', 'sales'), 'gateway:call', 'gpt-4o'), false)
    assert.equal(authz.authorize(agent('a'), 'gateway:call', 'gpt-4o'), false)
  })

  it('counts an evaluation error as deny, even where Cedar itself would allow', async () => {
    // The forbid overflows a Long: Cedar skips an erroring policy, so without gov's rule the permit would win.
    const file = dir.write(
      'overflow.cedar',
      `permit (principal, action, resource);
       @id("overflowing-forbid")
       forbid (principal == Gov::Agent::"bot", action, resource) when { 9223372036854775807 + 1 > 0 };`,
    )
    const { logger, lines } = capturedLogger()
    const authz = new CedarAuthorizer({ logger, file })
    assert.equal(authz.loaded, true, 'overflow is not a validation error')
    const d = authz.decide(agent('bot'), 'gateway:call', 'gpt-4o')
    assert.equal(d.allowed, false)
    assert.equal(d.code, 'forbidden')
    assert.equal(d.errors.length, 1)
    assert.match(d.errors[0], /^overflowing-forbid: /)
    assert.equal(authz.authorize(agent('other'), 'gateway:call', 'gpt-4o'), true, 'the policy does not apply')
    await flushLogs()
    assert.ok(lines.some((l) => l.msg === 'policy evaluation error: denied'))
  })

  describe('without a usable policy file', () => {
    const cases: [string, () => string, string][] = [
      ['missing', () => `${dir.write('x.cedar', '')}.missing`, PolicyErrorCodes.NOT_FOUND],
      ['empty', () => dir.write('empty.cedar', ''), PolicyErrorCodes.EMPTY],
      ['only comments', () => dir.write('comments.cedar', '// nothing here\n'), PolicyErrorCodes.EMPTY],
      [
        'unparsable',
        () => dir.write('syntax.cedar', 'permit (principal, action, resource'),
        PolicyErrorCodes.INVALID,
      ],
      [
        'not matching the schema',
        () => dir.write('schema.cedar', 'permit (principal, action == Action::"delete", resource);'),
        PolicyErrorCodes.INVALID,
      ],
      [
        'using an unknown attribute',
        () =>
          dir.write(
            'attr.cedar',
            'permit (principal is Gov::Agent, action, resource) when { principal.team == "x" };',
          ),
        PolicyErrorCodes.INVALID,
      ],
      [
        'a template',
        () => dir.write('tpl.cedar', 'permit (principal == ?principal, action, resource);'),
        PolicyErrorCodes.INVALID,
      ],
      [
        'with duplicate ids',
        () =>
          dir.write(
            'dup.cedar',
            '@id("a") permit (principal, action, resource);\n@id("a") forbid (principal, action, resource);',
          ),
        PolicyErrorCodes.INVALID,
      ],
    ]
    for (const [label, file, code] of cases) {
      it(`${label}: loads nothing, denies everything with no_policy and logs ${code}`, async () => {
        const { logger, lines } = capturedLogger()
        const authz = new CedarAuthorizer({ logger, file: file() })
        assert.equal(authz.loaded, false)
        assert.equal(authz.report, undefined)
        assert.equal(authz.decide(agent('bot'), 'gateway:call', 'gpt-4o').code, 'no_policy')
        assert.equal(authz.decide(ADMIN, 'admin:read', 'pipelines').code, 'no_policy')
        await flushLogs()
        assert.ok(
          lines.some((l) => l.level === 50 && l.code === code),
          JSON.stringify(lines),
        )
      })
    }

    it('locates parse and validation problems by line and column', async () => {
      const file = dir.write(
        'located.cedar',
        '// header\npermit (principal, action, resource);\n\n@id("bad")\npermit (principal is Gov::Agent, action, resource)\n  when { principal.team == "x" };\n',
      )
      const authz = new CedarAuthorizer({ logger: capturedLogger().logger, file })
      const err = await authz.reload().then(
        () => assert.fail('must not load'),
        (e: PolicyLoadError) => e,
      )
      assert.equal(err.code, PolicyErrorCodes.INVALID)
      assert.equal(err.status, 400)
      const problem = err.problems[0]
      assert.equal(problem.policy, 'bad')
      assert.equal(problem.line, 6)
      assert.equal(problem.column, 10)
    })
  })

  describe('reload', () => {
    let file: string
    let authz: CedarAuthorizer
    before(() => {
      file = dir.write('reload.cedar', INTERN_POLICY)
      authz = new CedarAuthorizer({ logger: capturedLogger().logger, file })
    })

    it('swaps in a new policy and forgets cached decisions', async () => {
      assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o'), false)
      dir.write('reload.cedar', 'permit (principal is Gov::Agent, action == Action::"call", resource);')
      const report = await authz.reload()
      assert.deepEqual(report.policies, ['policy0'])
      assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o'), true)
      assert.equal(
        authz.authorize(ADMIN, 'admin:read', 'pipelines'),
        false,
        'the new policy has no admin permit',
      )
    })

    it('keeps the old policy when the new file is broken', async () => {
      dir.write('reload.cedar', INTERN_POLICY)
      await authz.reload()
      dir.write('reload.cedar', 'forbid (principal, action, resource) when { nonsense };')
      await assert.rejects(authz.reload(), (e: PolicyLoadError) => e.code === PolicyErrorCodes.INVALID)
      assert.equal(authz.loaded, true)
      assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o-mini'), true)
      assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o'), false)
    })

    it('loads a fixed file after starting with none', async () => {
      const late = dir.write('late.cedar', '')
      const none = new CedarAuthorizer({ logger: capturedLogger().logger, file: late })
      assert.equal(none.loaded, false)
      await assert.rejects(none.reload(), (e: PolicyLoadError) => e.code === PolicyErrorCodes.EMPTY)
      dir.write('late.cedar', INTERN_POLICY)
      await none.reload()
      assert.equal(none.loaded, true)
      assert.equal(none.authorize(agent('bot'), 'gateway:call', 'gpt-4o'), true)
    })

    it('keeps two authorizers in one process apart', () => {
      const other = new CedarAuthorizer({
        logger: capturedLogger().logger,
        file: dir.write('deny.cedar', 'forbid (principal, action, resource);'),
      })
      assert.equal(other.authorize(agent('bot'), 'gateway:call', 'gpt-4o'), false)
      assert.equal(authz.authorize(agent('bot'), 'gateway:call', 'gpt-4o'), true)
    })
  })

  it('measures the cost of one authorization (printed, not asserted)', (t) => {
    const authz = new CedarAuthorizer({
      logger: capturedLogger().logger,
      file: dir.write('cost.cedar', INTERN_POLICY),
    })
    const n = 2_000
    for (let i = 0; i < 200; i++) authz.authorize(agent(`warm-${i}`), 'gateway:call', `m-${i}`)
    // Distinct resources: every decision misses the cache and goes to Cedar.
    let started = performance.now()
    for (let i = 0; i < n; i++) authz.authorize(agent('intern-bot'), 'gateway:call', `gpt-4o-mini-${i}`)
    const evaluated = ((performance.now() - started) * 1000) / n
    started = performance.now()
    for (let i = 0; i < n; i++) authz.authorize(agent('intern-bot'), 'gateway:call', 'gpt-4o-mini-7')
    const cached = ((performance.now() - started) * 1000) / n
    t.diagnostic(
      `one Cedar authorization (statefulIsAuthorized): ${evaluated.toFixed(1)} µs; cached decision: ${cached.toFixed(2)} µs`,
    )
    assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', `gpt-4o-mini-${n}`), true)
    assert.equal(authz.authorize(agent('intern-bot'), 'gateway:call', `gpt-4-${n}`), false)
  })
})
