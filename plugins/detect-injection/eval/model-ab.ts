/**
 * Two models side by side in one process (A/B), on the same texts: the cost
 * of the model's logits alone and of a whole `analyze`, per call. Texts are
 * the dev file's prompts and tool outputs cut to about 1 KB (uncached, each
 * scored once per round). Two measures:
 *
 * - CPU time (process.cpuUsage) of blocks of 100 calls, A and B alternating
 *   block by block, median µs per call: what the code costs when its data
 *   stays in cache;
 * - wall time of each call with `--evict MB` of other memory read between
 *   calls (as other requests' work does under load), median µs per call: what
 *   the weight table's cache misses cost.
 *
 *   node plugins/detect-injection/dist/eval/model-ab.js A/model.json B/model.json [--rounds N] [--evict MB]
 *
 * A path ending in `#float` loads that model with its float32 weights only,
 * summed as 0.5.3 did (the same file, the old code path).
 */
import { performance } from 'node:perf_hooks'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { InjectionDetector } from '../src/detector.js'
import { type ChannelWeights, LinearModel, weightAt } from '../src/linear-model.js'
import type { Channel } from '../src/match-rules.js'
import { loadModel } from '../src/model-file.js'
import { loadRows } from '../train/dataset.js'
import { compareArgs } from './compare-args.js'

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

function main(): void {
  const args = compareArgs(2, 'model-ab.js A/model.json B/model.json [--rounds N] [--evict MB]')
  const paths = args.paths
  const rounds = args.number('--rounds', 5)
  const evictBytes = args.number('--evict', 8) * 1024 * 1024
  const models: LinearModel[] = paths.map((p) => {
    const model = loadModel(pathToFileURL(p.replace(/#float$/, '')))
    if (!p.endsWith('#float')) return model
    // The float32 weights, as 0.5.3 and earlier summed them.
    const float = (ch: ChannelWeights): ChannelWeights => ({
      bias: ch.bias,
      ...(ch.cues ? { cues: true } : {}),
      weights: Float32Array.from({ length: 1 << model.bits }, (_, i) => weightAt(ch, i)),
    })
    return new LinearModel(
      model.bits,
      { direct: float(model.channels.direct), tool: float(model.channels.tool) },
      model.combine,
    )
  })
  const detectors: InjectionDetector[] = models.map((m) => new InjectionDetector(m))
  const rows = (loadRows() ?? []).filter((r) => r.text.length >= 200)
  const texts = rows.map((r, i) => ({
    text: `${i} ${r.text.repeat(Math.ceil(1024 / r.text.length)).slice(0, 1024)}`,
    channel: r.channel as Channel,
  }))
  console.log(`${texts.length} texts of ~1 KB from the dev file; A = ${paths[0]}, B = ${paths[1]}`)
  const evict = new Int32Array(evictBytes / 4)
  let sink = 0
  const work = {
    logits: (k: number, t: (typeof texts)[number]) => {
      sink += models[k]!.logit(t.text, t.channel)
    },
    analyze: (k: number, t: (typeof texts)[number]) => {
      sink += detectors[k]!.analyze(t.text, t.channel).score
    },
  }
  for (const [name, run] of Object.entries(work)) {
    // Warm up both.
    for (let k = 0; k < 2; k++) for (const t of texts.slice(0, 200)) run(k, t)
    const cpu: number[][] = [[], []]
    const wall: number[][] = [[], []]
    for (let r = 0; r < rounds; r++) {
      for (let start = 0; start < texts.length; start += 100) {
        const block = texts.slice(start, start + 100)
        for (let k = 0; k < 2; k++) {
          const before = process.cpuUsage()
          for (const t of block) run(k, t)
          const used = process.cpuUsage(before)
          cpu[k]!.push((used.user + used.system) / block.length)
        }
      }
      for (const t of texts) {
        for (let k = 0; k < 2; k++) {
          for (let i = 0; i < evict.length; i += 16) sink += evict[i]!++
          const start = performance.now()
          run(k, t)
          wall[k]!.push((performance.now() - start) * 1000)
        }
      }
    }
    const [ca, cb] = cpu.map(median) as [number, number]
    const [wa, wb] = wall.map(median) as [number, number]
    console.log(
      `${name}: CPU µs/call A ${ca.toFixed(1)} B ${cb.toFixed(1)} (B/A ${(cb / ca).toFixed(2)}); after evicting ${evictBytes >> 20} MB, wall µs/call A ${wa.toFixed(1)} B ${wb.toFixed(1)} (B/A ${(wb / wa).toFixed(2)})`,
    )
  }
  if (sink === 0.5) console.log('')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
