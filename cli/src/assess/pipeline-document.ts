import { Document, isMap, isScalar, isSeq, type Node, type Pair, type YAMLMap } from 'yaml'
import type { Answers } from './answers.js'
import type { Recommendation } from './recommend.js'

/** Format version of the file `gov assess` writes (top-level `version`). */
export const FILE_VERSION = 1

const WIDTH = 100

/** Wrap prose into comment lines of at most `WIDTH` characters (yaml adds the `#`). */
function wrap(text: string, indent = 0): string {
  const width = WIDTH - indent - 2
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let line = ''
    for (const word of paragraph.split(' ')) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line)
        line = `  ${word}`
      } else line = line ? `${line} ${word}` : word
    }
    lines.push(line)
  }
  return lines.map((l) => ` ${l}`).join('\n')
}

function pairOf(map: unknown, key: string): Pair<Node, Node> {
  if (!isMap(map)) throw new Error(`expected a map holding ${key}`)
  const pair = (map as YAMLMap<Node, Node>).items.find((p) => isScalar(p.key) && p.key.value === key)
  if (!pair || !isScalar(pair.key)) throw new Error(`no ${key} in the document`)
  return pair
}

function commentKey(map: unknown, key: string, text: string, indent: number): void {
  const k = pairOf(map, key).key as Node
  k.commentBefore = wrap(text, indent)
}

/** One line summarising the answers, for the pipeline's description. */
export function describeAnswers(a: Answers): string {
  const parts = [
    `data ${a.data.join('/')}`,
    `tools ${a.tools}`,
    a.untrustedInput ? 'untrusted input' : 'trusted input only',
    `${a.users} users`,
    a.regulated.length ? `regulated: ${a.regulated.join('/')}` : 'not regulated',
  ]
  return `Assessed by gov assess: ${parts.join(', ')}`
}

/** The shell command that imports the file; the key stays in the environment, never in the file. */
export function importCommand(baseUrl: string, file: string): string {
  return `curl -X POST ${baseUrl.replace(/\/+$/, '')}/pipelines/import -H "Authorization: Bearer $GOV_ADMIN_API_KEY" -H 'Content-Type: application/yaml' --data-binary @${file}`
}

/**
 * Build `gov-pipeline.yaml`: the pipeline definition the import endpoint takes
 * (under `pipeline:`), the answers it came from, and a comment on every choice
 * saying why, so a reviewer can argue with the reasons rather than the values.
 */
export function buildPipelineDocument(
  answers: Answers,
  rec: Recommendation,
  meta: { version: string; baseUrl: string; file: string },
): Document {
  const overrides: Record<string, Record<string, unknown>> = {}
  for (const [step, settings] of Object.entries(rec.overrides)) {
    overrides[step] = Object.fromEntries(Object.entries(settings as object).map(([k, c]) => [k, c.value]))
  }
  const doc = new Document({
    version: FILE_VERSION,
    assessment: {
      data: answers.data,
      tools: answers.tools,
      untrusted_input: answers.untrustedInput,
      users: answers.users,
      regulated: answers.regulated,
    },
    pipeline: {
      pipeline_id: answers.pipelineId,
      description: describeAnswers(answers),
      preset: rec.preset.value,
      overrides,
      allow_flags: [],
    },
  })

  const header = [
    `gov-pipeline.yaml for ${answers.pipelineId}, written by gov assess (gov ${meta.version}).`,
    'Import it into a running gateway (admin key from the environment):',
    `  ${importCommand(meta.baseUrl, meta.file)}`,
    'then assign it to an agent:',
    `  curl -X PUT ${meta.baseUrl.replace(/\/+$/, '')}/pipelines/${answers.pipelineId}/assign/<agent_id> -H "Authorization: Bearer $GOV_ADMIN_API_KEY"`,
  ]
  if (rec.notes.length) header.push('', 'Worth doing beyond this file:', ...rec.notes.map((n) => `- ${n}`))
  doc.commentBefore = header.map((line) => (line.startsWith('  curl') ? ` ${line}` : wrap(line))).join('\n')

  const assessment = doc.get('assessment', true)
  commentKey(
    doc.contents,
    'assessment',
    'The answers this file was derived from; gov assess with the same answers writes the same file. Import ignores this block.',
    0,
  )
  for (const list of ['data', 'regulated']) {
    const seq = pairOf(assessment, list).value
    if (isSeq(seq)) seq.flow = true
  }
  commentKey(doc.contents, 'pipeline', 'What POST /pipelines/import reads.', 0)

  const pipeline = doc.get('pipeline', true)
  commentKey(pipeline, 'preset', `Preset ${rec.preset.value}: ${rec.preset.why}.`, 2)
  const overridesNode = pairOf(pipeline, 'overrides').value
  if (!Object.keys(overrides).length) {
    commentKey(
      pipeline,
      'overrides',
      'No step settings changed: every step runs with the preset’s settings.',
      2,
    )
  } else {
    commentKey(
      pipeline,
      'overrides',
      'Step settings over the preset; steps not named here keep the preset’s settings.',
      2,
    )
    for (const [step, settings] of Object.entries(rec.overrides)) {
      const stepMap = pairOf(overridesNode, step).value
      for (const [name, choice] of Object.entries(settings as Record<string, { why: string }>)) {
        commentKey(stepMap, name, `${choice.why}.`, 6)
      }
    }
  }
  const flags = pairOf(pipeline, 'allow_flags')
  if (isSeq(flags.value)) flags.value.flow = true
  commentKey(
    pipeline,
    'allow_flags',
    'Caller flags (X-Gov-Flags) that may relax governance for this pipeline; none, so callers can only make it stricter.',
    2,
  )
  return doc
}
