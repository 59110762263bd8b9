import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { AgentService } from '../../src/agents/agent-service.js'
import type { AuditTrail } from '../../src/audit/audit-trail.js'
import { TOKENS } from '../../src/container.js'
import type { PipelineService } from '../../src/pipelines/pipeline-service.js'
import { onlySteps, startTestGateway, type TestGateway } from '../../src/testing/test-gateway.js'
import { INTERN_POLICY, policyDir } from './policy-fixtures.js'

const AUDITOR_KEY = 'test-auditor-key'
const PLAIN = onlySteps('standard', { fx_pass: {} })
const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'hello' }] })
const messages = (model: string) => ({
  model,
  max_tokens: 64,
  messages: [{ role: 'user', content: 'hello' }],
})

/** Create a pipeline and an agent on it through the services: the admin API may be refused. */
async function seedAgent(t: TestGateway, agentId: string): Promise<string> {
  const pipelines = t.gateway.container.resolve<PipelineService>(TOKENS.Pipelines)
  // Changes through the services are audited like the admin API's.
  const audit = t.gateway.container.resolve<AuditTrail>(TOKENS.Audit)
  if (!(await pipelines.find('plain'))) {
    await pipelines.create(
      { pipeline_id: 'plain', preset: 'standard', overrides: PLAIN, allow_flags: [] },
      audit,
      () => ({ action: 'pipeline.create', status: 201, pipelineId: 'plain' }),
    )
  }
  const { apiKey } = await t.gateway.container
    .resolve<AgentService>(TOKENS.Agents)
    .create(agentId, 'plain', audit, () => ({ action: 'agent.create', status: 201, agentId }))
  return apiKey
}

async function readiness(t: TestGateway): Promise<{ status: number; body: { checks: { policy: string } } }> {
  const res = await fetch(`${t.url}/health/ready`)
  return { status: res.status, body: (await res.json()) as { checks: { policy: string } } }
}

describe('authorization policy at the gateway', () => {
  const dir = policyDir()
  after(() => dir.remove())

  describe('the default policy', () => {
    let t: TestGateway
    let agentKey: string
    before(async () => {
      t = await startTestGateway({ env: { GOV_AUDITOR_API_KEY: AUDITOR_KEY } })
      agentKey = await seedAgent(t, 'bot')
    })
    after(() => t.close())

    it('lets agents call both vendor endpoints', async () => {
      assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o'), { key: agentKey })).status, 200)
      assert.equal(
        (await t.call('/v1/messages', messages('claude-sonnet-4-6'), { key: agentKey })).status,
        200,
      )
    })

    it('lets the admin do everything', async () => {
      assert.equal(
        (await t.admin('POST', '/pipelines', { pipeline_id: 'p2', preset: 'standard', overrides: PLAIN }))
          .status,
        201,
      )
      assert.equal(
        (await t.admin('POST', '/agents', { agent_id: 'made-by-admin', pipeline_id: 'p2' })).status,
        201,
      )
      assert.equal((await t.admin('PUT', '/pipelines/plain/assign/made-by-admin')).status, 200)
      for (const path of [
        '/pipelines',
        '/pipelines/p2',
        '/agents',
        '/agents/bot',
        '/health/overview',
        '/metrics',
        '/audit',
        '/audit/verify',
      ]) {
        assert.equal((await t.admin('GET', path)).status, 200, path)
      }
      assert.equal((await t.admin('POST', '/admin/secrets/invalidate?name=OPENAI_API_KEY')).status, 200)
      const reload = await t.admin('POST', '/admin/policy/reload')
      assert.equal(reload.status, 200)
      assert.deepEqual(reload.body.policies, ['agents-call', 'admin-all', 'auditor-read'])
      assert.equal((await t.admin('DELETE', '/agents/made-by-admin')).status, 204)
    })

    it('refuses agent keys on admin endpoints (403 forbidden, gov format)', async () => {
      for (const [method, path] of [
        ['GET', '/pipelines'],
        ['POST', '/agents'],
        ['GET', '/metrics'],
        ['GET', '/health/overview'],
        ['POST', '/admin/policy/reload'],
      ]) {
        const res = await t.admin(method, path, method === 'POST' ? {} : undefined, { key: agentKey })
        assert.equal(res.status, 403, `${method} ${path}`)
        assert.equal(res.body.error.code, 'forbidden', `${method} ${path}`)
      }
    })

    it('lets the auditor read pipelines, agents, the overview, metrics and the audit trail', async () => {
      for (const path of [
        '/pipelines',
        '/pipelines/plain',
        '/agents',
        '/agents/bot',
        '/health/overview',
        '/metrics',
        '/audit',
        '/audit/verify',
      ]) {
        assert.equal((await t.admin('GET', path, undefined, { key: AUDITOR_KEY })).status, 200, path)
      }
    })

    it('refuses every write of the auditor with 403 forbidden', async () => {
      const writes: [string, string, unknown][] = [
        ['POST', '/pipelines', { pipeline_id: 'nope', preset: 'standard' }],
        ['PUT', '/pipelines/plain', { preset: 'strict' }],
        ['DELETE', '/pipelines/plain', undefined],
        ['PUT', '/pipelines/plain/assign/bot', undefined],
        ['POST', '/agents', { agent_id: 'nope' }],
        ['DELETE', '/agents/bot', undefined],
        ['POST', '/agents/bot/rotate-key', undefined],
        ['POST', '/admin/policy/reload', undefined],
        ['POST', '/admin/secrets/invalidate?name=OPENAI_API_KEY', undefined],
        ['POST', '/admin/tokens/rotate', undefined],
      ]
      for (const [method, path, body] of writes) {
        const res = await t.admin(method, path, body, { key: AUDITOR_KEY })
        assert.equal(res.status, 403, `${method} ${path}`)
        assert.equal(res.body.error.code, 'forbidden', `${method} ${path}`)
      }
      assert.equal((await t.admin('GET', '/agents/bot')).status, 200, 'nothing was deleted')
    })

    it('does not take the auditor key as an agent key', async () => {
      assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o'), { key: AUDITOR_KEY })).status, 401)
    })
  })

  describe('a policy file restricting an agent to some models', () => {
    let t: TestGateway
    let intern: string
    let other: string
    before(async () => {
      t = await startTestGateway({ env: { GOV_POLICY_FILE: dir.write('intern.cedar', INTERN_POLICY) } })
      intern = await seedAgent(t, 'intern-bot')
      other = await seedAgent(t, 'other-bot')
    })
    after(() => t.close())

    it('lets the agent call an allowed model', async () => {
      const res = await t.call('/v1/chat/completions', chat('gpt-4o-mini'), { key: intern })
      assert.equal(res.status, 200)
      assert.equal(res.body.object, 'chat.completion')
    })

    it('refuses another model with 403 forbidden in the OpenAI format', async () => {
      const upstreamBefore = t.mock.requests.length
      const res = await t.call('/v1/chat/completions', chat('gpt-4o'), { key: intern })
      assert.equal(res.status, 403)
      assert.equal(res.body.error.code, 'forbidden')
      assert.equal(res.body.error.type, 'permission_error')
      assert.equal(t.mock.requests.length, upstreamBefore, 'nothing reached the provider')
    })

    it('refuses another model with 403 forbidden in the Anthropic format', async () => {
      const res = await t.call('/v1/messages', messages('claude-sonnet-4-6'), { key: intern })
      assert.equal(res.status, 403)
      assert.equal(res.body.type, 'error')
      assert.equal(res.body.error.type, 'permission_error')
      assert.equal(res.body.error.code, 'forbidden')
    })

    it('leaves other agents alone', async () => {
      assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o'), { key: other })).status, 200)
    })

    it('keeps the old policy when a reload finds a broken file, and answers 400 with the problems', async () => {
      const file = t.gateway.config.policyFile as string
      dir.write(
        'intern.cedar',
        `${INTERN_POLICY}\nforbid (principal, action, resource) when { principal.nope };\n`,
      )
      const res = await t.admin('POST', '/admin/policy/reload')
      assert.equal(res.status, 400)
      assert.equal(res.body.error.code, 'GOV_ERR_POLICY_INVALID')
      assert.ok(res.body.error.details.problems.length > 0)
      assert.equal(res.body.error.details.problems[0].line, 9)
      assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o-mini'), { key: intern })).status, 200)
      assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o'), { key: intern })).status, 403)
      assert.equal((await readiness(t)).status, 200)

      dir.write('intern.cedar', INTERN_POLICY.replace('gpt-4o-mini*', 'gpt-4o*'))
      const ok = await t.admin('POST', '/admin/policy/reload')
      assert.equal(ok.status, 200)
      assert.equal(ok.body.file, file)
      assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o'), { key: intern })).status, 200)
    })
  })

  describe('with no usable policy', () => {
    const files: [string, () => string][] = [
      ['missing', () => `${dir.write('gone.cedar', '')}.missing`],
      ['empty', () => dir.write('empty.cedar', '')],
      [
        'invalid',
        () =>
          dir.write('invalid.cedar', 'permit (principal, action, resource) when { principal.team == 1 };'),
      ],
    ]
    for (const [label, file] of files) {
      it(`${label} file: every request is 403 and /health/ready is 503 with policy "error"`, async () => {
        const t = await startTestGateway({
          env: { GOV_POLICY_FILE: file(), GOV_AUDITOR_API_KEY: AUDITOR_KEY },
        })
        try {
          const agentKey = await seedAgent(t, 'bot')
          const chatRes = await t.call('/v1/chat/completions', chat('gpt-4o-mini'), { key: agentKey })
          assert.equal(chatRes.status, 403)
          assert.equal(chatRes.body.error.code, 'no_policy')
          const msgRes = await t.call('/v1/messages', messages('claude-sonnet-4-6'), { key: agentKey })
          assert.equal(msgRes.status, 403)
          assert.equal(msgRes.body.error.code, 'no_policy')
          assert.equal(
            (await t.call('/v1/chat/completions', chat('gpt-4o'), {})).status,
            403,
            'no key either',
          )
          for (const [method, path] of [
            ['GET', '/pipelines'],
            ['POST', '/agents'],
            ['GET', '/agents/bot'],
            ['GET', '/metrics'],
            ['GET', '/health/overview'],
          ]) {
            for (const key of [undefined, AUDITOR_KEY, agentKey]) {
              const res = await t.admin(method, path, method === 'POST' ? { agent_id: 'x' } : undefined, {
                key,
              })
              assert.equal(res.status, 403, `${method} ${path}`)
              assert.equal(res.body.error.code, 'no_policy', `${method} ${path}`)
            }
          }
          const ready = await readiness(t)
          assert.equal(ready.status, 503)
          assert.equal(ready.body.checks.policy, 'error')
          assert.equal((await fetch(`${t.url}/health/live`)).status, 200, 'the process keeps running')
          assert.equal((await fetch(`${t.url}/health/startup`)).status, 503)
        } finally {
          await t.close()
        }
      })
    }

    it('loads a fixed file through the reload endpoint (admin key only)', async () => {
      const file = dir.write('fixable.cedar', '')
      const t = await startTestGateway({ env: { GOV_POLICY_FILE: file, GOV_AUDITOR_API_KEY: AUDITOR_KEY } })
      try {
        const agentKey = await seedAgent(t, 'bot')
        const empty = await t.admin('POST', '/admin/policy/reload')
        assert.equal(empty.status, 400)
        assert.equal(empty.body.error.code, 'GOV_ERR_POLICY_EMPTY')
        dir.write('fixable.cedar', INTERN_POLICY)
        assert.equal(
          (await t.admin('POST', '/admin/policy/reload', undefined, { key: AUDITOR_KEY })).status,
          403,
        )
        assert.equal(
          (await t.admin('POST', '/admin/policy/reload', undefined, { key: agentKey })).status,
          403,
        )
        assert.equal((await t.admin('POST', '/admin/policy/reload', undefined, { key: null })).status, 401)
        const ok = await t.admin('POST', '/admin/policy/reload')
        assert.equal(ok.status, 200)
        assert.deepEqual(ok.body.policies, ['policy0', 'policy1', 'intern-small-models'])
        assert.equal((await readiness(t)).status, 200)
        assert.equal((await t.call('/v1/chat/completions', chat('gpt-4o'), { key: agentKey })).status, 200)
      } finally {
        await t.close()
      }
    })
  })
})
