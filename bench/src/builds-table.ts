import { parseArgs } from 'node:util'
import { commitLabel, loadLabel } from './run-info.js'

/**
 * The options of the side-by-side benches (price-book, runner-overhead):
 * `--builds label=dir,…` (default `current=host/dist/src`), `--rounds` (7)
 * and `--n` calls per round (20 000).
 */
export function buildsOptions(): { builds: [label: string, dir: string][]; rounds: number; n: number } {
  const { values } = parseArgs({
    options: {
      builds: { type: 'string', default: 'current=host/dist/src' },
      rounds: { type: 'string', default: '7' },
      n: { type: 'string', default: '20000' },
    },
  })
  return {
    builds: (values.builds as string).split(',').map((spec) => spec.split('=') as [string, string]),
    rounds: Number(values.rounds),
    n: Number(values.n),
  }
}

/** The median of some samples (the upper one of an even count, as the side-by-side benches have always used). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number

/**
 * A Markdown table of per-round samples, one row per measured thing and one
 * column per build (the median of its rounds), under a title and the run's
 * commit, load and Node version.
 */
export function buildsTable(
  title: string,
  labels: readonly string[],
  results: ReadonlyMap<string, ReadonlyMap<string, number[]>>,
  digits: number,
): string {
  const lines = [
    title,
    '',
    `${new Date().toISOString()} · commit ${commitLabel()} · ${loadLabel()} · Node ${process.versions.node}`,
    '',
    `| row | ${labels.join(' | ')} |`,
    `|---|${labels.map(() => '---:').join('|')}|`,
  ]
  for (const [row, byBuild] of results) {
    lines.push(`| ${row} | ${labels.map((l) => median(byBuild.get(l) ?? []).toFixed(digits)).join(' | ')} |`)
  }
  return `${lines.join('\n')}\n`
}
