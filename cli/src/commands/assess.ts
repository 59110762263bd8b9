import { writeFile } from 'node:fs/promises'
import { Command, Option } from 'clipanion'
import { AnswerError, DATA_KINDS, REGULATIONS, TOOL_REACH, USER_KINDS } from '../assess/answers.js'
import { buildPipelineDocument, importCommand } from '../assess/pipeline-document.js'
import { recommend } from '../assess/recommend.js'
import { resolveAnswers } from '../assess/resolve-answers.js'
import { terminalAsk } from '../assess/terminal-ask.js'
import { PACKAGE_VERSION } from '../version.js'

/** Codes `gov assess` reports. */
export const AssessErrorCodes = {
  ANSWER_INVALID: 'GOV_ERR_ASSESS_ANSWER_INVALID',
  FILE_EXISTS: 'GOV_ERR_ASSESS_FILE_EXISTS',
  WRITE_FAILED: 'GOV_ERR_ASSESS_WRITE_FAILED',
} as const

/** `gov assess`: answer a few questions about an agent, get a commented `gov-pipeline.yaml`. */
export class AssessCommand extends Command {
  static override paths = [['assess']]

  static override usage = Command.Usage({
    description: 'write a gov-pipeline.yaml for an agent from a short risk assessment',
    details: `
      Asks what the agent handles and can do, chooses a preset (\`observe\`, \`standard\` or \`strict\`) and the step settings that follow from the answers, and writes them to \`gov-pipeline.yaml\` with a comment on every choice saying why. Import the file with \`POST /pipelines/import\`; the command prints the exact call.

      Every question has a flag. In a terminal, missing flags are asked; otherwise all of them are required, and the error names the missing ones.

      - \`--data\`: ${DATA_KINDS.join(', ')} (comma list)
      - \`--tools\`: ${TOOL_REACH.join(', ')} (\`external\` = tools that can send data out: email, HTTP, uploads)
      - \`--untrusted-input\` / \`--no-untrusted-input\`: does it read web pages, emails, documents or tool output
      - \`--users\`: ${USER_KINDS.join(', ')}
      - \`--regulated\`: ${REGULATIONS.join(', ')} or \`none\` (comma list)

      The file only sets settings the steps define (\`detect_injection.threshold\`, \`detect_pii.action\`, \`scan_secrets.action\`), so it always validates on import; advice beyond that is written as comments. An existing file is kept unless \`--force\` is given.
    `,
    examples: [
      ['Assess interactively', '$0 assess'],
      [
        'Assess a support agent that reads emails and can send them',
        '$0 assess --pipeline-id support-bot --data pii,financial --tools external --untrusted-input --users external --regulated gdpr',
      ],
      [
        'Write somewhere else, replacing an earlier file',
        '$0 assess --pipeline-id docs-search --data public --tools read --no-untrusted-input --users internal --regulated none --out pipelines/docs.yaml --force',
      ],
    ],
  })

  pipelineId = Option.String('--pipeline-id', { description: 'Id of the pipeline to write' })
  data = Option.String('--data', { description: `Data it handles: ${DATA_KINDS.join(', ')}` })
  tools = Option.String('--tools', { description: `Strongest tool: ${TOOL_REACH.join(', ')}` })
  untrustedInput = Option.Boolean('--untrusted-input', {
    description: 'It reads web pages, emails, documents or tool output',
  })
  users = Option.String('--users', { description: `Who talks to it: ${USER_KINDS.join(', ')}` })
  regulated = Option.String('--regulated', { description: `Regulations: ${REGULATIONS.join(', ')} or none` })
  out = Option.String('--out', 'gov-pipeline.yaml', { description: 'File to write' })
  force = Option.Boolean('--force', false, { description: 'Replace an existing file' })
  url = Option.String('--url', 'http://127.0.0.1:8080', {
    description: 'Gateway URL used in the printed import command',
  })

  override async execute(): Promise<number> {
    const { stdin, stdout, stderr } = this.context
    const terminal = (stdin as { isTTY?: boolean }).isTTY ? terminalAsk(stdin, stdout) : undefined
    let answers: Awaited<ReturnType<typeof resolveAnswers>>
    try {
      answers = await resolveAnswers(
        {
          pipelineId: this.pipelineId,
          data: this.data,
          tools: this.tools,
          untrustedInput: this.untrustedInput,
          users: this.users,
          regulated: this.regulated,
        },
        terminal?.ask,
      )
    } catch (err) {
      if (!(err instanceof AnswerError)) throw err
      stderr.write(`gov assess: ${err.code}: ${err.message}\n`)
      return 1
    } finally {
      terminal?.close()
    }

    const rec = recommend(answers)
    const shown = this.out
    const doc = buildPipelineDocument(answers, rec, {
      version: PACKAGE_VERSION,
      baseUrl: this.url,
      file: shown,
    })
    try {
      await writeFile(this.out, doc.toString({ lineWidth: 0 }), { flag: this.force ? 'w' : 'wx' })
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      if (e.code === 'EEXIST') {
        stderr.write(
          `gov assess: ${AssessErrorCodes.FILE_EXISTS}: ${shown} exists; pass --force to replace it or --out to write elsewhere\n`,
        )
      } else {
        stderr.write(
          `gov assess: ${AssessErrorCodes.WRITE_FAILED}: cannot write ${shown}: ${e.code ?? e.message}\n`,
        )
      }
      return 1
    }

    const lines = [
      `wrote ${shown}: pipeline ${answers.pipelineId}, preset ${rec.preset.value}`,
      `  why: ${rec.preset.why}`,
    ]
    for (const [step, settings] of Object.entries(rec.overrides)) {
      for (const [name, choice] of Object.entries(
        settings as Record<string, { value: unknown; why: string }>,
      )) {
        lines.push(`  ${step}.${name} = ${String(choice.value)}: ${choice.why}`)
      }
    }
    for (const note of rec.notes) lines.push(`  note: ${note}`)
    lines.push('import it:', `  ${importCommand(this.url, shown)}`)
    stdout.write(`${lines.join('\n')}\n`)
    return 0
  }
}
