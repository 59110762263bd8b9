// Runs the client-library compatibility tests (test/dist/test/compat-*.test.js,
// build first) with node:test's TAP reporter and prints the README's
// compatibility table (client × feature) from the results; with --write it
// replaces the table between the compat-table markers in README.md.
// Exits non-zero when a case failed, after printing (and writing) the table.
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const dir = join(root, 'test', 'dist', 'test')
const files = readdirSync(dir)
  .filter((f) => f.startsWith('compat-') && f.endsWith('.test.js'))
  .map((f) => relative(root, join(dir, f)))
if (!files.length) {
  console.error('no compat-*.test.js found; run `npx tsc -b test` first')
  process.exit(1)
}

// Column order; names as the tests' FEATURE constants (test/test/helpers/compat.ts).
const FEATURES = [
  'plain',
  'streaming',
  'tool loop',
  'streamed tool loop',
  'bad key',
  'PII masked and restored',
]
// The package whose installed version a row reports, by the start of the suite name.
const PACKAGES = [
  ['AI SDK @ai-sdk/anthropic', '@ai-sdk/anthropic'],
  ['AI SDK openai', '@ai-sdk/openai'],
  ['LangChain ChatOpenAI', '@langchain/openai'],
  ['LangChain ChatAnthropic', '@langchain/anthropic'],
  ['OpenAI Agents SDK', '@openai/agents'],
  ['openai ', 'openai'],
  ['@anthropic-ai/sdk', '@anthropic-ai/sdk'],
]

const run = spawnSync(
  process.execPath,
  ['--import', 'reflect-metadata', '--test', '--test-concurrency=1', '--test-reporter=tap', ...files],
  { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'test' }, maxBuffer: 64 * 1024 * 1024 },
)

/** suite → feature → 'pass' | 'fail' | 'skip'. A suite's children are reported (indented) before it. */
const results = new Map()
let pending = new Map()
for (const line of run.stdout.split('\n')) {
  const m = /^( *)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/.exec(line)
  if (!m) continue
  const [, indent, status, rawName, directive] = m
  const name = rawName.replace(/\\#/g, '#')
  const outcome = directive ? 'skip' : status === 'ok' ? 'pass' : 'fail'
  if (indent.length === 4) pending.set(name, outcome)
  else if (indent.length === 0 && pending.size) {
    results.set(name, pending)
    pending = new Map()
  }
}

function versionOf(suite) {
  const pkg = PACKAGES.find(([prefix]) => suite.startsWith(prefix))?.[1]
  if (!pkg) return ''
  for (const base of [join(root, 'test', 'node_modules'), join(root, 'node_modules')]) {
    try {
      return `${pkg} ${JSON.parse(readFileSync(join(base, pkg, 'package.json'), 'utf8')).version}`
    } catch {}
  }
  return pkg
}

const MARK = { pass: '✅', fail: '❌', skip: 'skipped' }
const rows = [...results].map(([suite, features]) => {
  const cells = FEATURES.map((f) => MARK[features.get(f)] ?? '—')
  return `| ${suite} | ${versionOf(suite)} | ${cells.join(' | ')} |`
})
const failed = [...results.values()].some((features) => [...features.values()].includes('fail'))
const table = [
  `| Client | Package | ${FEATURES.join(' | ')} |`,
  `|---|---|${FEATURES.map(() => ':-:').join('|')}|`,
  ...rows,
].join('\n')
console.log(table)

if (process.argv.includes('--write')) {
  const readme = join(root, 'README.md')
  const text = readFileSync(readme, 'utf8')
  const start = '<!-- compat-table:start -->'
  const end = '<!-- compat-table:end -->'
  const from = text.indexOf(start)
  const to = text.indexOf(end)
  if (from < 0 || to < from) {
    console.error(`README.md has no ${start} … ${end} markers`)
    process.exit(1)
  }
  writeFileSync(readme, `${text.slice(0, from + start.length)}\n${table}\n${text.slice(to)}`)
  console.error('README.md table written')
}
if (!results.size) {
  console.error(run.stderr || run.stdout)
  process.exit(1)
}
process.exit(failed || run.status !== 0 ? 1 : 0)
