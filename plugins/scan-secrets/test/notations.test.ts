import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { alnum, checksummed, hex, P } from './fixtures.js'
import { scanText } from './helpers.js'

/** How config files and code assign a value to a name; `{n}` is the name stem, `{v}` the value. */
const NOTATIONS: Record<string, string> = {
  'ini quoted': '{n}Token="{v}"',
  'ini spaced': '{n}Token = "{v}"',
  'ini bare': '{n}Token={v}',
  'env file': '{N}_TOKEN={v}',
  json: '{\n  "{n}_token": "{v}"\n}',
  'json inside a JSON string': '{\\"{n}_token\\": \\"{v}\\"}',
  'xml element': '<{n}Token>{v}</{n}Token>',
  'xml element on its own line': '<{n}Token>\n    {v}\n</{n}Token>',
  'yaml bare': '{n}_token: {v}',
  'yaml quoted': "{n}_token: '{v}'",
  'yaml block scalar': '{n}_token: |\n  {v}',
  'yaml folded scalar': '{n}_token: >\n  {v}',
  'c#': 'string {n}Token = "{v}";',
  go: '{n}Token := "{v}"',
  'go raw string': '{n}Token := `{v}`',
  java: 'private static final String {N}_TOKEN = "{v}";',
  'php append': `\${n}Token .= "{v}";`,
  python: "{n}_token = '{v}'",
  'ruby hash': ':{n}_token => "{v}"',
  logstash: '"{n}Token" => "{v}"',
  'make conditional': '{N}_TOKEN ?= "{v}"',
  'make simple': '{N}_TOKEN := "{v}"',
  'make append': '{N}_TOKEN += "{v}"',
  'function argument': 'os.environ.setdefault("{n}_token", "{v}")',
  'shell export': 'export {N}_TOKEN="{v}"',
  'docker env': 'ENV {N}_TOKEN={v}',
  'properties file': '{n}.token={v}',
  'toml table': '[{n}]\ntoken = "{v}"',
}

function render(template: string, stem: string, value: string): string {
  return template.replaceAll('{n}', stem).replaceAll('{N}', stem.toUpperCase()).replaceAll('{v}', value)
}

function assertFound(text: string, value: string, kind: string) {
  const hit = scanText(text).find((f) => f.type === kind)
  assert.ok(hit, `no ${kind} in ${JSON.stringify(text)}`)
  assert.equal(text.slice(hit.span!.start, hit.span!.end), value)
}

describe('assignment notations', () => {
  for (const [name, template] of Object.entries(NOTATIONS)) {
    it(`${name}: vendor key known only by its name (Datadog)`, () => {
      if (name === 'toml table') return // the vendor name is in the table header, not the key
      const value = hex(32)
      assertFound(render(template, 'datadog', value), value, 'devtools_token')
    })
    it(`${name}: generic secret`, () => {
      const value = `${alnum(18)}9`
      assertFound(render(template, 'service_auth', value), value, 'generic_secret')
    })
    it(`${name}: prefixed token`, () => {
      const value = checksummed(P.ghp)
      assertFound(render(template, 'github', value), value, 'github_token')
    })
  }
})
