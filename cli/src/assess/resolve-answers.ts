import {
  AnswerError,
  type Answers,
  DATA_KINDS,
  InputEndedError,
  parseChoice,
  parseList,
  parsePipelineId,
  parseYesNo,
  REGULATIONS,
  TOOL_REACH,
  USER_KINDS,
} from './answers.js'

/** Answers as given on the command line; anything missing is asked or reported. */
export interface GivenAnswers {
  pipelineId?: string | undefined
  data?: string | undefined
  tools?: string | undefined
  untrustedInput?: boolean | undefined
  users?: string | undefined
  regulated?: string | undefined
}

/** Asks one question and returns the raw reply. */
export type Ask = (question: string) => Promise<string>

interface Question<K extends keyof Answers> {
  key: K
  flag: string
  prompt: string
  parse(raw: string): Answers[K]
}

const QUESTIONS = [
  {
    key: 'pipelineId',
    flag: '--pipeline-id',
    prompt: 'Pipeline id (e.g. support-bot)',
    parse: parsePipelineId,
  } satisfies Question<'pipelineId'>,
  {
    key: 'data',
    flag: '--data',
    prompt: `Data the agent handles, comma separated (${DATA_KINDS.join(', ')})`,
    parse: (raw: string) => parseList(raw, DATA_KINDS, '--data'),
  } satisfies Question<'data'>,
  {
    key: 'tools',
    flag: '--tools',
    prompt: `Strongest tool it can call (${TOOL_REACH.join(', ')}; external = can send data out)`,
    parse: (raw: string) => parseChoice(raw, TOOL_REACH, '--tools'),
  } satisfies Question<'tools'>,
  {
    key: 'untrustedInput',
    flag: '--untrusted-input',
    prompt: 'Does it read untrusted content: web pages, emails, documents, tool output? (yes/no)',
    parse: (raw: string) => parseYesNo(raw, '--untrusted-input'),
  } satisfies Question<'untrustedInput'>,
  {
    key: 'users',
    flag: '--users',
    prompt: `Who talks to it (${USER_KINDS.join(', ')})`,
    parse: (raw: string) => parseChoice(raw, USER_KINDS, '--users'),
  } satisfies Question<'users'>,
  {
    key: 'regulated',
    flag: '--regulated',
    prompt: `Regulations that apply, comma separated (${REGULATIONS.join(', ')}, or none)`,
    parse: (raw: string) => parseList(raw, REGULATIONS, '--regulated', true),
  } satisfies Question<'regulated'>,
] as const

/** How many times a wrong reply is asked again before giving up. */
const ATTEMPTS = 3

/**
 * Turn flags into complete answers. Missing answers are asked with `ask` (a
 * terminal), a wrong reply is asked again; without `ask` every missing flag is
 * named in one AnswerError so a script learns all of them at once.
 */
export async function resolveAnswers(given: GivenAnswers, ask?: Ask): Promise<Answers> {
  const out: Partial<Record<keyof Answers, unknown>> = {}
  const missing: string[] = []
  for (const q of QUESTIONS) {
    const value = given[q.key]
    if (typeof value === 'boolean') out[q.key] = value
    else if (value !== undefined) out[q.key] = q.parse(value)
    else if (ask) out[q.key] = await askUntilValid(q, ask)
    else missing.push(q.flag)
  }
  if (missing.length) {
    throw new AnswerError(
      `missing ${missing.join(', ')}; pass them as flags or run gov assess in a terminal to answer interactively`,
    )
  }
  return out as unknown as Answers
}

async function askUntilValid<K extends keyof Answers>(q: Question<K>, ask: Ask): Promise<Answers[K]> {
  let prompt = `${q.prompt}: `
  for (let attempt = 1; ; attempt++) {
    try {
      return q.parse(await ask(prompt))
    } catch (err) {
      if (!(err instanceof AnswerError) || err instanceof InputEndedError || attempt >= ATTEMPTS) throw err
      prompt = `  ${err.message.replace(/^--[a-z-]+ takes/, 'answer with')}\n${q.prompt}: `
    }
  }
}
