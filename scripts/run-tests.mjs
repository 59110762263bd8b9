// Runs every compiled test file (`<workspace>/dist/test/**/*.test.js`) with node:test.
// Node 20's `--test` takes directories, not globs, and would also run helper files,
// so the files are listed here. Fails fast when GOV_TEST_DATABASE_URL or
// GOV_TEST_REDIS_URL is set but unreachable: CI must not silently skip them.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { connect } from 'node:net'
import { join, relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname

function findTests(dir, out = []) {
  if (!existsSync(dir)) return out
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) findTests(path, out)
    else if (entry.name.endsWith('.test.js')) out.push(path)
  }
  return out
}

async function reachable(url) {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) }, () => {
      socket.end()
      resolve(true)
    })
    socket.setTimeout(3000, () => {
      socket.destroy()
      resolve(false)
    })
    socket.on('error', () => resolve(false))
  })
}

for (const name of ['GOV_TEST_DATABASE_URL', 'GOV_TEST_REDIS_URL']) {
  const url = process.env[name]
  if (url && !(await reachable(url))) {
    console.error(
      `${name} is set to ${url.replace(/\/\/[^@]*@/, '//***@')} but nothing answers there; start it or unset ${name}.`,
    )
    process.exit(1)
  }
}

const filter = process.argv.slice(2)
const workspaces = [
  'core',
  'host',
  'cli',
  'test',
  'bench',
  ...['plugins', 'examples'].flatMap((dir) => readdirSync(join(root, dir)).map((d) => `${dir}/${d}`)),
]
let files = workspaces.flatMap((ws) => findTests(join(root, ws, 'dist', 'test')))
if (filter.length) files = files.filter((f) => filter.some((part) => f.includes(part)))
if (!files.length) {
  console.error('no test files found; run `npm run build` first')
  process.exit(1)
}
console.log(`running ${files.length} test files`)
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'reflect-metadata',
    '--test',
    '--test-concurrency=2',
    '--test-reporter=spec',
    ...files.map((f) => relative(root, f)),
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
)
process.exit(result.status ?? 1)
