/** Generated admin API requests: pipelines, agents, import, audit queries, tokens, secrets. */
import { TEST_ADMIN_KEY } from '../../src/testing/test-gateway.js'
import { brokenText, headerValue, mutate, type Rng, randomString, randomValue } from './fuzz-gen.js'
import type { FuzzCase } from './fuzz-runner.js'

/** URL-encode any string; lone surrogates cannot be encoded, so they become U+FFFD first. */
function encode(text: string): string {
  return encodeURIComponent(wellFormed(text))
}

/** `String.prototype.toWellFormed` (ES2024, not in this project's lib). */
function wellFormed(text: string): string {
  return text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
}

/** An id: mostly valid, sometimes hostile (encoded into the path). */
function randomId(rng: Rng, known: readonly string[]): string {
  if (rng.chance(0.4)) return rng.pick(known)
  return encode(rng.chance(0.5) ? randomString(rng).slice(0, 200) : `p-${rng.int(50)}`)
}

function pipelineBody(rng: Rng, id: string): unknown {
  const body: Record<string, unknown> = {
    pipeline_id: id,
    preset: rng.pick(['standard', 'strict', 'observe', 'minimal', 'nope']),
    overrides: rng.pick([
      {
        detect_injection: { threshold: rng.pick([0.5, 2, -1, 'x']) },
        detect_pii: { disabled: rng.chance(0.5) },
      },
      // Strings every store must take or refuse alike (jsonb refuses \u0000).
      {
        detect_business: { terms: [{ term: 'a\u0000b' }, { term: randomString(rng).slice(0, 200) || 'x' }] },
      },
      { detect_business: { patterns: [{ name: 'p', regex: randomString(rng).slice(0, 200) || '(' }] } },
      { detect_business: { [randomString(rng).slice(0, 40)]: randomString(rng) } },
      { [randomString(rng).slice(0, 40)]: randomValue(rng) },
    ]),
  }
  if (rng.chance(0.3)) body.allow_flags = rng.pick([['mode'], ['pii', 'mode'], [randomString(rng)], 'mode'])
  if (rng.chance(0.3))
    body.content = rng.pick([{ media: 'refuse' }, { unknown_blocks: 'pass' }, randomValue(rng)])
  return mutate(rng, body)
}

const YAML_SNIPPETS = [
  'pipeline:\n  pipeline_id: y1\n  preset: standard\n',
  'pipeline_id: y2\npreset: standard\noverrides:\n  detect_pii: {disabled: true}\n',
  'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]\n',
  '!!js/function "function(){}"\n',
  '--- a\n--- b\n',
  'pipeline_id: y3\npreset: !!binary aGVsbG8=\n',
  '<<: {pipeline_id: y4}\npreset: standard\n',
  'pipeline_id: "\\0"\npreset: "\\u0000"\n',
  '%YAML 9.9\n---\nx: 1\n',
  '? [a, b]\n: c\n',
]

function yamlText(rng: Rng): string {
  switch (rng.int(4)) {
    case 0:
      return `x: ${'['.repeat(50 + rng.int(5000))}`
    case 1:
      return `${'- '.repeat(1 + rng.int(3000))}x\n`
    case 2:
      return randomString(rng)
    default:
      return rng.pick(YAML_SNIPPETS)
  }
}

function auditQuery(rng: Rng): string {
  const params = new URLSearchParams()
  for (let i = rng.int(4); i > 0; i--) {
    params.set(
      rng.pick(['from', 'to', 'limit', 'cursor', 'agent_id', 'kind', 'action', 'session_id', 'x']),
      rng.pick([
        '0000-01-01T00:00:00Z',
        '9999-12-31T23:59:59Z',
        '2026-13-45',
        '-1',
        '0',
        '1e9',
        'NaN',
        '\u0000',
        wellFormed(randomString(rng).slice(0, 100)),
      ]),
    )
  }
  return params.toString()
}

export function adminCase(rng: Rng, known: { pipelines: string[]; agents: string[] }): FuzzCase {
  const headers: Record<string, string> = {}
  const auth = rng.int(20)
  if (auth === 0) headers.authorization = headerValue(rng)
  else if (auth === 1)
    headers.authorization = `Bearer ${randomString(rng)
      .replace(/[^\x21-\x7e]/g, '')
      .slice(0, 100)}`
  else if (auth > 2) headers.authorization = `Bearer ${TEST_ADMIN_KEY}`
  const json = (value: unknown) => {
    headers['content-type'] = 'application/json'
    const text = JSON.stringify(value) ?? 'null'
    return rng.chance(0.15) ? brokenText(rng, text) : text
  }
  const pipeline = () => randomId(rng, known.pipelines)
  const agent = () => randomId(rng, known.agents)
  switch (rng.int(14)) {
    case 0:
    case 1:
      return {
        method: 'POST',
        path: '/pipelines',
        headers,
        body: json(pipelineBody(rng, `p-${rng.int(50)}`)),
      }
    case 2: {
      const id = pipeline()
      return {
        method: 'PUT',
        path: `/pipelines/${id}`,
        headers,
        body: json(pipelineBody(rng, decodeURIComponent(id))),
      }
    }
    case 3:
      headers['content-type'] = rng.pick([
        'application/yaml',
        'text/plain',
        'application/json',
        'text/x-yaml',
      ])
      return { method: 'POST', path: '/pipelines/import', headers, body: yamlText(rng) }
    case 4:
      return {
        method: 'POST',
        path: '/agents',
        headers,
        body: json(
          mutate(rng, { agent_id: `a-${rng.int(50)}`, pipeline_id: rng.pick([null, ...known.pipelines]) }),
        ),
      }
    case 5:
      return { method: 'GET', path: rng.pick([`/agents/${agent()}`, `/pipelines/${pipeline()}`]), headers }
    case 6:
      return { method: 'DELETE', path: rng.pick([`/agents/${agent()}`, `/pipelines/${pipeline()}`]), headers }
    case 7:
      return { method: 'PUT', path: `/pipelines/${pipeline()}/assign/${agent()}`, headers }
    case 8:
      return { method: 'POST', path: `/agents/${agent()}/rotate-key`, headers }
    case 9:
    case 10:
      return { method: 'GET', path: `/audit?${auditQuery(rng)}`, headers }
    case 11:
      return {
        method: 'POST',
        path: '/v1/tokens/verify',
        headers,
        body: json(mutate(rng, { token: randomString(rng) })),
      }
    case 12:
      return { method: 'POST', path: `/admin/secrets/invalidate?name=${encode(randomString(rng))}`, headers }
    default:
      return {
        method: 'GET',
        path: rng.pick(['/agents', '/pipelines', '/health/overview', '/audit/verify', '/metrics']),
        headers,
      }
  }
}
