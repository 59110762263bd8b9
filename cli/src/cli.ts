import { Builtins, Cli } from 'clipanion'
import { AssessCommand } from './commands/assess.js'
import { DoctorCommand } from './commands/doctor.js'
import { ServeCommand } from './commands/serve.js'
import { PACKAGE_VERSION } from './version.js'

/** Build the `gov` command line with every command registered (tests run it with captured streams). */
export function buildCli(): Cli {
  const cli = new Cli({
    binaryLabel: 'gov — governance gateway for AI agents',
    binaryName: 'gov',
    binaryVersion: PACKAGE_VERSION,
  })
  cli.register(ServeCommand)
  cli.register(DoctorCommand)
  cli.register(AssessCommand)
  cli.register(Builtins.HelpCommand)
  cli.register(Builtins.VersionCommand)
  return cli
}
