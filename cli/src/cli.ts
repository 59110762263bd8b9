import { Builtins, Cli } from 'clipanion'
import { AgentsCreateCommand } from './commands/agents/create.js'
import { AgentsDeleteCommand } from './commands/agents/delete.js'
import { AgentsListCommand } from './commands/agents/list.js'
import { AgentsRotateCommand } from './commands/agents/rotate.js'
import { AssessCommand } from './commands/assess.js'
import { AuditExportCommand } from './commands/audit/export.js'
import { AuditVerifyCommand } from './commands/audit/verify.js'
import { DoctorCommand } from './commands/doctor.js'
import { PipelinesAssignCommand } from './commands/pipelines/assign.js'
import { PipelinesCreateCommand } from './commands/pipelines/create.js'
import { PipelinesGetCommand } from './commands/pipelines/get.js'
import { PipelinesImportCommand } from './commands/pipelines/import.js'
import { PipelinesListCommand } from './commands/pipelines/list.js'
import { SecretsInvalidateCommand } from './commands/secrets/invalidate.js'
import { ServeCommand } from './commands/serve.js'
import { SessionsClearCommand } from './commands/sessions/clear.js'
import { SessionsShowCommand } from './commands/sessions/show.js'
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
  cli.register(AgentsCreateCommand)
  cli.register(AgentsDeleteCommand)
  cli.register(AgentsListCommand)
  cli.register(AgentsRotateCommand)
  cli.register(AuditExportCommand)
  cli.register(AuditVerifyCommand)
  cli.register(PipelinesAssignCommand)
  cli.register(PipelinesCreateCommand)
  cli.register(PipelinesGetCommand)
  cli.register(PipelinesImportCommand)
  cli.register(PipelinesListCommand)
  cli.register(SecretsInvalidateCommand)
  cli.register(SessionsClearCommand)
  cli.register(SessionsShowCommand)
  cli.register(Builtins.HelpCommand)
  cli.register(Builtins.VersionCommand)
  return cli
}
