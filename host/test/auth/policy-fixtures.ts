import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import type { AgentPrincipal } from '../../src/auth/authorizer.js'
import { createLogger, type Logger } from '../../src/logging.js'
import type { AgentRecord } from '../../src/storage/store.js'

/** A folder for policy files, removed by `remove()`. */
export function policyDir(): { write(name: string, text: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gov-policy-'))
  return {
    write(name, text) {
      const file = join(dir, name)
      writeFileSync(file, text)
      return file
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A logger whose JSON lines are kept in `lines`. */
export function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createLogger('info', sink), lines }
}

/** Let pino's stream deliver what was logged. */
export const flushLogs = () => new Promise((resolve) => setImmediate(resolve))

/** An agent principal as the gateway builds it. */
export function agent(agentId: string, pipelineId: string | null = null): AgentPrincipal {
  const record: AgentRecord = {
    agent_id: agentId,
    pipeline_id: pipelineId,
    key_hash: 'x'.repeat(64),
    key_prefix: 'gov_test',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }
  return { kind: 'agent', agent: record }
}

/** Restricts `intern-bot` to gpt-4o-mini models; everything else as the default policy. */
export const INTERN_POLICY = `
permit (principal is Gov::Agent, action == Action::"call", resource is Gov::Model);
permit (principal is Gov::Admin, action, resource is Gov::Api) when { principal.role == "admin" };

@id("intern-small-models")
forbid (principal == Gov::Agent::"intern-bot", action == Action::"call", resource)
unless { resource.name like "gpt-4o-mini*" };
`
