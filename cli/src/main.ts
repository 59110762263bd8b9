import { Cli } from 'clipanion'
import { buildCli } from './cli.js'

const code = await buildCli().run(process.argv.slice(2), Cli.defaultContext)
process.exitCode = code
// A command that finished has released what it opened; a handle some dependency
// forgot must not keep a stopped `gov` alive, so exit shortly after regardless.
setTimeout(() => process.exit(code), 2_000).unref()
