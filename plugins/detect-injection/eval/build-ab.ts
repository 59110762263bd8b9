/**
 * Two builds of the package side by side in one process (A/B of code, not
 * only of models): each build's `dist/` with a model file, on the dev file's
 * texts cut to about 1 KB, each text new to both (a prefix per round). Blocks
 * of 100 calls alternate between the builds, and which build goes first
 * alternates every round (whichever runs second in a pair reads a few percent
 * faster). Prints the median CPU µs per call (process.cpuUsage over a block)
 * and the median wall µs per call after reading `--evict` MB of other memory
 * before each call (as other requests' work does under load), for the model's
 * logit alone and for a whole `analyze`.
 *
 *   cp -r plugins/detect-injection/dist plugins/detect-injection/model /tmp/old/   # before the change
 *   node plugins/detect-injection/dist/eval/build-ab.js /tmp/old/dist /tmp/old/model/model.json \
 *     plugins/detect-injection/dist plugins/detect-injection/model/model.json [--rounds 6] [--evict 8] [--long]
 *
 * A copied build resolves `@gov/core` from a `node_modules` next to it (a
 * symlink to the repository's does).
 */
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import type { Channel } from '../src/match-rules.js'
import { loadRows, TRAIN_FILE } from '../train/dataset.js'
import { compareArgs, loadBuild } from './compare-args.js'

interface Side {
  readonly logit: (text: string, channel: Channel) => number
  readonly analyze: (text: string, channel: Channel) => number
}

async function loadSide(dist: string, model: string): Promise<Side> {
  const { model: m, detector } = await loadBuild(dist, model)
  return {
    logit: (text, channel) => m.logit(text, channel),
    analyze: (text, channel) => detector.analyze(text, channel).score,
  }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

async function main(): Promise<void> {
  const args = compareArgs(4, 'build-ab.js A/dist A/model.json B/dist B/model.json [--rounds N] [--evict MB]')
  const { argv, paths } = args
  const rounds = args.number('--rounds', 6)
  const evict = new Int32Array((args.number('--evict', 8) * 1024 * 1024) / 4)
  const sides = [await loadSide(paths[0]!, paths[1]!), await loadSide(paths[2]!, paths[3]!)]
  // --long: rows of the training file at least 1 KB long, cut to 1 KB (text that does not repeat
  // itself, as a real 1 KB prompt does not; the dev file's rows are mostly shorter and are repeated).
  const long = argv.includes('--long')
  const rows = long
    ? (loadRows(TRAIN_FILE) ?? []).filter((r) => r.text.length >= 1100).slice(0, 600)
    : (loadRows() ?? []).filter((r) => r.text.length >= 200)
  const texts = rows.map((r, i) => ({
    text: `${i} ${r.text.repeat(Math.ceil(1024 / r.text.length)).slice(0, 1024)}`,
    channel: r.channel as Channel,
  }))
  console.log(
    `${texts.length} texts of ~1 KB from the ${long ? 'training' : 'dev'} file; A = ${paths[0]}, B = ${paths[2]}`,
  )
  let sink = 0
  for (const name of ['logit', 'analyze'] as const) {
    const run = (k: number, t: (typeof texts)[number], prefix: string) => {
      sink += sides[k]![name](prefix + t.text, t.channel)
    }
    for (let k = 0; k < 2; k++) for (const t of texts) run(k, t, 'w')
    const cpu: number[][] = [[], []]
    const wall: number[][] = [[], []]
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 ? [1, 0] : [0, 1]
      for (let start = 0; start < texts.length; start += 100) {
        const block = texts.slice(start, start + 100)
        for (const k of order) {
          const before = process.cpuUsage()
          for (const t of block) run(k, t, `c${r}`)
          const used = process.cpuUsage(before)
          cpu[k]!.push((used.user + used.system) / block.length)
        }
      }
      for (const t of texts)
        for (const k of order) {
          for (let i = 0; i < evict.length; i += 16) sink += evict[i]!++
          const start = performance.now()
          run(k, t, `e${r}`)
          wall[k]!.push((performance.now() - start) * 1000)
        }
    }
    const [ca, cb] = cpu.map(median) as [number, number]
    const [wa, wb] = wall.map(median) as [number, number]
    console.log(
      `${name}: CPU µs/call A ${ca.toFixed(1)} B ${cb.toFixed(1)} (B/A ${(cb / ca).toFixed(2)}); after evicting ${evict.length >> 18} MB, wall µs/call A ${wa.toFixed(1)} B ${wb.toFixed(1)} (B/A ${(wb / wa).toFixed(2)})`,
    )
  }
  if (sink === 0.5) console.log('')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main()
