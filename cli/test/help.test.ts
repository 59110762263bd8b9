import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { PACKAGE_VERSION } from '../src/version.js'
import { runCli } from './helpers/run-cli.js'

describe('gov help', () => {
  it('lists the commands', async () => {
    const run = await runCli(['--help'])
    assert.equal(run.code, 0)
    for (const command of ['serve', 'doctor', 'assess'])
      assert.match(run.stdout, new RegExp(`gov ${command}`))
  })

  for (const command of ['serve', 'doctor', 'assess']) {
    it(`explains gov ${command}`, async () => {
      const run = await runCli([command, '--help'])
      assert.equal(run.code, 0)
      assert.match(run.stdout, /Details/)
      assert.match(run.stdout, /Examples/)
    })
  }

  it('prints the package version', async () => {
    const run = await runCli(['--version'])
    assert.equal(run.stdout.trim(), PACKAGE_VERSION)
  })

  it('exits non-zero on an unknown command', async () => {
    const run = await runCli(['fly'])
    assert.equal(run.code, 1)
  })
})
