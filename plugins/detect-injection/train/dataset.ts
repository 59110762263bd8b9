/**
 * Reading the labelled injection datasets from `../shared/datasets/` (relative to the
 * repository root). The data is never copied into the repository.
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** One labelled row. */
export interface Row {
  readonly text: string
  /** 1 = injection or jailbreak, 0 = benign. */
  readonly label: 0 | 1
  readonly source: string
  /** `tool` when the text is what a tool returned (indirect injection), else `direct`. */
  readonly channel: 'direct' | 'tool'
  /** Language tag, when the file has one. */
  readonly lang?: string
}

/** `/work/shared/datasets/` seen from `plugins/detect-injection/dist/<dir>/`. */
export const DATASETS_URL = new URL('../../../../../shared/datasets/', import.meta.url)

/** Path of the injection dev set. */
export function datasetPath(file = 'injection-dev.jsonl'): string {
  return fileURLToPath(new URL(file, DATASETS_URL))
}

/**
 * Hand-written rows kept in the package (`train/extra-rows.jsonl`): benign
 * prompts that share words with attacks (role-play, "ignore the noise",
 * security questions, short generic requests) and attacks in forms the data lacks. They only ever
 * train; they are never scored in calibration or eval.
 */
export const EXTRA_ROWS_PATH = fileURLToPath(new URL('../../train/extra-rows.jsonl', import.meta.url))

/**
 * Hand-written benign persona prompts (`train/persona-rows.jsonl`, 440 rows;
 * in the training part by default since 0.5.1, `train.ts --no-persona-rows`
 * leaves them out): "act as
 * / you are / pretend to be / from now on you are my" + an ordinary
 * occupation, tool, character or game, its instructions and formatting rules
 * ("do not write explanations", "my first request is …"), in English and six
 * other languages. Unlike the extra rows they are a source group of their own
 * (`persona-prompts`): they join the training part, so leave-one-source-out
 * holds them out and reports their false-positive rate, and the calibration
 * counts them among the ordinary benign prompts.
 */
export const PERSONA_ROWS_PATH = fileURLToPath(new URL('../../train/persona-rows.jsonl', import.meta.url))

/** The large training file (31k rows); its held-out part is fixed by train/split.ts. */
export const TRAIN_FILE = 'injection-train.jsonl'
/** The dev file: never trained on, reported as a second held-out set. */
export const DEV_FILE = 'injection-dev.jsonl'

/** Rows of a dataset file (the dev set by default), or undefined when the file is absent. */
export function loadRows(file = 'injection-dev.jsonl'): Row[] | undefined {
  const path = datasetPath(file)
  if (!existsSync(path)) return undefined
  return parseRows(path)
}

/** The hand-written training rows. */
export function loadExtraRows(): Row[] {
  return parseRows(EXTRA_ROWS_PATH)
}

/** The hand-written persona prompts (a benign source group of their own). */
export function loadPersonaRows(): Row[] {
  return parseRows(PERSONA_ROWS_PATH)
}

function parseRows(path: string): Row[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => {
      const raw = JSON.parse(line) as {
        text: string
        label: number
        source: string
        channel?: string
        lang?: string
      }
      const row: Row = {
        text: raw.text,
        label: raw.label === 1 ? 1 : 0,
        source: raw.source,
        channel: raw.channel === 'tool_result' ? 'tool' : 'direct',
        ...(raw.lang ? { lang: raw.lang } : {}),
      }
      return row
    })
}

/** The source family: `garak-dan:DUDE` → `garak-dan`. */
export function sourceFamily(source: string): string {
  const i = source.indexOf(':')
  return i < 0 ? source : source.slice(0, i)
}
