/**
 * What the scripts that compare two builds or two models share: their
 * command line (paths, and numbers given as `--name value`) and loading the
 * detector of another build's `dist/`.
 */
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { InjectionDetector } from '../src/detector.js'
import type { LinearModel } from '../src/linear-model.js'

/** The arguments after the script: its paths, and a reader of `--name value` numbers. */
export interface CompareArgs {
  readonly argv: readonly string[]
  /** The arguments that are neither a flag nor the word after a flag. */
  readonly paths: readonly string[]
  /** The number after `name`, or `fallback` when `name` is not given. */
  number(name: string, fallback: number): number
}

/** `process.argv`'s arguments; prints `usage` and exits 2 unless they hold exactly `count` paths. */
export function compareArgs(count: number, usage: string): CompareArgs {
  const argv = process.argv.slice(2)
  const paths = argv.filter((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'))
  if (paths.length !== count) {
    console.error(`usage: ${usage}`)
    process.exit(2)
  }
  return {
    argv,
    paths,
    number(name, fallback) {
      const i = argv.indexOf(name)
      return i >= 0 ? Number(argv[i + 1]) : fallback
    },
  }
}

/**
 * The model file `model` loaded by the code of the build in `dist` (that
 * build's `src/model-file.js` and `src/detector.js`), and a detector over it.
 */
export async function loadBuild(
  dist: string,
  model: string,
): Promise<{ model: LinearModel; detector: InjectionDetector }> {
  const root = pathToFileURL(`${resolve(dist)}/`)
  const { loadModel } = await import(new URL('src/model-file.js', root).href)
  const { InjectionDetector } = await import(new URL('src/detector.js', root).href)
  const loaded = loadModel(pathToFileURL(resolve(model))) as LinearModel
  return { model: loaded, detector: new InjectionDetector(loaded) }
}
