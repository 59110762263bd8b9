import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { hasTmux, TmuxTerminal } from './helpers/tmux.js'

const GOV = fileURLToPath(new URL('../../bin/gov.js', import.meta.url))
const NO_TMUX =
  !hasTmux() && 'tmux is not installed (apt-get install -y tmux): the real-terminal tests need it'

describe('gov in a real terminal (tmux)', { skip: NO_TMUX }, () => {
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'gov-tty-'))
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('gov assess asks each question, asks again after a wrong reply, and writes the file', async () => {
    const term = new TmuxTerminal(`node ${GOV} assess; echo "EXIT=$?"`, { cwd: dir })
    try {
      await term.waitFor(/Pipeline id \(e\.g\. support-bot\): $/m)
      term.type('support-bot')
      await term.waitFor(/Data the agent handles, comma separated .*: $/m)
      term.type('pii,financial')
      await term.waitFor(/Strongest tool it can call .*: $/m)
      term.type('teleport')
      // A wrong reply is explained and asked again, in the terminal.
      await term.waitFor(/answer with .*\n.*Strongest tool it can call .*: $/m)
      term.type('external')
      await term.waitFor(/Does it read untrusted content.*\(yes\/no\): $/m)
      term.type('yes')
      await term.waitFor(/Who talks to it .*: $/m)
      term.type('external')
      await term.waitFor(/Regulations that apply.*: $/m)
      term.type('gdpr')
      const screen = await term.waitFor(/^EXIT=\d+$/m)
      assert.match(screen, /^EXIT=0$/m)
      assert.match(screen, /pipelines\/import/)
      const file = join(dir, 'gov-pipeline.yaml')
      assert.ok(existsSync(file))
      const doc = parse(readFileSync(file, 'utf8'))
      assert.equal(doc.pipeline.pipeline_id, 'support-bot')
      assert.equal(doc.pipeline.preset, 'strict')
    } finally {
      term.close()
    }
  })

  it('gov assess ends cleanly with a coded error on Ctrl+D', async () => {
    const term = new TmuxTerminal(`node ${GOV} assess --out ${join(dir, 'ctrl-d.yaml')}; echo "EXIT=$?"`, {
      cwd: dir,
    })
    try {
      await term.waitFor(/Pipeline id \(e\.g\. support-bot\): $/m)
      term.type('eof-bot')
      await term.waitFor(/Data the agent handles/)
      term.key('C-d')
      const screen = await term.waitFor(/^EXIT=\d+$/m)
      assert.match(screen, /GOV_ERR_ASSESS_ANSWER_INVALID/)
      assert.match(screen, /^EXIT=1$/m)
      assert.ok(!existsSync(join(dir, 'ctrl-d.yaml')))
    } finally {
      term.close()
    }
  })

  it('gov doctor prints its table and exit code in a terminal', async () => {
    const term = new TmuxTerminal(`node ${GOV} doctor --timeout 500; echo "EXIT=$?"`, {
      cwd: dir,
      env: {
        GOV_ADMIN_API_KEY: 'tty-admin',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        GOV_POLICY_FILE: join(dir, 'missing.cedar'),
      },
    })
    try {
      const screen = await term.waitFor(/^EXIT=\d+$/m, 60_000)
      assert.match(screen, /^gov doctor \(gov \S+\)$/m)
      assert.match(screen, /^ok {2}\s*node\s+version\s+Node\.js/m)
      assert.match(screen, /^FAIL\s+policy\s+GOV_POLICY_FILE\s+.*missing\.cedar cannot be read/m)
      assert.match(screen, /^\d+ ok, \d+ warn, [1-9]\d* fail: fix the FAIL lines before serving$/m)
      assert.match(screen, /^EXIT=1$/m)
      assert.ok(!screen.includes('tty-admin'), 'key values never reach the screen')
    } finally {
      term.close()
    }
  })
})
