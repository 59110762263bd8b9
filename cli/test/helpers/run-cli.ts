import { PassThrough } from 'node:stream'
import { buildCli } from '../../src/cli.js'

/** What a command run printed and returned. */
export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = []
  stream.on('data', (c: Buffer) => chunks.push(c))
  return () => Buffer.concat(chunks).toString('utf8')
}

/**
 * Run `gov <args>` in process with captured streams, the way clipanion's demos
 * test commands. stdin is not a terminal, so nothing is asked interactively.
 */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const out = collect(stdout)
  const err = collect(stderr)
  const code = await buildCli().run(args, { stdin: new PassThrough(), stdout, stderr, env, colorDepth: 1 })
  return { code, stdout: out(), stderr: err() }
}
