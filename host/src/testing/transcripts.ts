import { readdir, readFile } from 'node:fs/promises'

/** A recorded non-streaming answer: status, the vendor headers worth keeping, and the exact body. */
export interface RecordedJson {
  status: number
  headers: Record<string, string>
  body: Record<string, unknown>
}

/** One recorded case (`openai/tool_call`): its JSON answer, its SSE stream, or both. */
export interface Transcript {
  /** `<vendor>/<name>`. */
  name: string
  json?: RecordedJson
  /** The body of {@link json} serialised once, so replaying costs no JSON work. */
  jsonText?: string
  sse?: string
}

/** Where the recorded answers live, relative to the compiled module (`host/dist/src/testing/`). */
export const TRANSCRIPTS_DIR = new URL('../../../fixtures/transcripts/', import.meta.url)

let loaded: Promise<ReadonlyMap<string, Transcript>> | undefined

/**
 * Every recorded transcript, keyed by `<vendor>/<name>`. Read from disk once
 * per process: the mock provider also serves load benchmarks.
 */
export function loadTranscripts(): Promise<ReadonlyMap<string, Transcript>> {
  loaded ??= readTranscripts()
  return loaded
}

async function readTranscripts(): Promise<ReadonlyMap<string, Transcript>> {
  const transcripts = new Map<string, Transcript>()
  for (const vendor of ['openai', 'anthropic']) {
    const dir = new URL(`${vendor}/`, TRANSCRIPTS_DIR)
    for (const file of (await readdir(dir)).sort()) {
      const match = /^(.+)\.(json|sse)$/.exec(file)
      if (!match) continue
      const name = `${vendor}/${match[1]}`
      const transcript = transcripts.get(name) ?? { name }
      const text = await readFile(new URL(file, dir), 'utf8')
      if (match[2] === 'sse') transcript.sse = text
      else {
        transcript.json = JSON.parse(text) as RecordedJson
        transcript.jsonText = JSON.stringify(transcript.json.body)
      }
      transcripts.set(name, transcript)
    }
  }
  return transcripts
}
