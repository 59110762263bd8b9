// `npm run eval`: runs every step package's quality report (`plugins/*/dist/eval/eval.js`)
// on ../shared/datasets and prints their tables. A report, not a pass/fail test.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const only = process.argv.slice(2)
let failed = false
for (const dir of readdirSync(join(root, 'plugins')).sort()) {
  if (only.length && !only.some((o) => dir.includes(o))) continue
  const script = join(root, 'plugins', dir, 'dist', 'eval', 'eval.js')
  if (!existsSync(script)) continue
  console.log(`\n## ${dir}\n`)
  const result = spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) failed = true
}
console.log(
  `\n_${new Date().toISOString().slice(0, 10)}, commit ${spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).stdout?.toString().trim() || 'unknown'}_`,
)
process.exit(failed ? 1 : 0)
