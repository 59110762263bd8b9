/**
 * Quality of scan_secrets on data it was not tuned on. Every row is run
 * through the step's onRequest hook as a user message, as the host would. A
 * positive counts as detected when the step reports any finding; on a
 * negative any finding is a false positive.
 *
 * 1. The held-out test side of ../shared/datasets/secrets-train.jsonl (split
 *    by `group` with a fixed seed, see split.ts; rules are only ever tuned on
 *    the train side): by form, by kind family, by source.
 * 2. ../shared/datasets/secrets-dev.jsonl (gitleaks rule test vectors; the
 *    rules were developed with it in view, so a regression check), by
 *    provider family; "right kind" is the share of detected positives whose
 *    finding kind matches the row's provider.
 * 3. benign prompts and tool results of injection-train.jsonl (label 0):
 *    the share of texts with any finding, by channel and kind.
 * 4. secretlint's recommended preset on the same rows, as a cross-check.
 *
 *   node plugins/scan-secrets/dist/eval/eval.js [--split train] [--misses] [--no-secretlint]
 *     [--by-rule] [--settings '{"min_score":0.8}']
 *
 * `--split train` reports the tuning side instead (for development; never quote it).
 */
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin, { resolveSettings, type ScanSecretsSettings } from '../src/index.js'
import { loadRows, type SecretRow } from './dataset.js'
import { familyOf } from './families.js'
import { kindFamily } from './kind-family.js'
import { secretlintScan } from './secretlint-check.js'
import { SPLIT_SEED, splitOf, TEST_SHARE } from './split.js'
import { Breakdown, countRow, f1, newTally, pct, type Tally } from './tally.js'

const args = process.argv.slice(2)
const option = (name: string) => {
  const at = args.indexOf(name)
  return at >= 0 ? args[at + 1] : undefined
}
const overrides: Partial<ScanSecretsSettings> = JSON.parse(option('--settings') ?? '{}')
const side = option('--split') === 'train' ? 'train' : 'test'
const showMisses = args.includes('--misses')

const train = loadRows('secrets-train.jsonl')
const dev = loadRows('secrets-dev.jsonl')
if ('missing' in train || 'missing' in dev) {
  console.log(
    `scan_secrets eval skipped: dataset not found at ${'missing' in train ? train.missing : ''} ${'missing' in dev ? dev.missing : ''}`,
  )
  process.exit(0)
}

const settings = resolveSettings(overrides)
const step = await plugin.create(settings, makeServices('scan_secrets'))
const onRequest = step.onRequest?.bind(step)
if (!onRequest) throw new Error('scan_secrets has no onRequest hook')

/** Kinds the step reports for a text (with the rule when misses are printed). */
async function scan(text: string): Promise<string[]> {
  const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]), { step: 'scan_secrets' })
  await onRequest?.(ctx)
  return ctx.findings.map((f) => (showMisses ? `${f.type}/${String(f.detail?.rule)}` : f.type))
}

const misses: string[] = []
const noteMiss = (row: SecretRow, tag: string | undefined, kinds: string[]) => {
  if (showMisses && (row.label === 1) !== kinds.length > 0) {
    misses.push(
      `${row.label ? 'FN' : 'FP'} ${tag} [${kinds.join(',')}] ${JSON.stringify(row.text.slice(0, 200))}`,
    )
  }
}

console.log(
  `settings: ${JSON.stringify({ ...overrides, min_score: settings.min_score, entropy_threshold: settings.entropy_threshold })}\n`,
)

// 1. held-out side of secrets-train.jsonl
const heldOut = train.rows.filter((row) => splitOf(row.group ?? row.text) === side)
const overall = newTally()
const byForm = new Breakdown()
const byFamily = new Breakdown()
const bySource = new Breakdown()
let started = performance.now()
for (const row of heldOut) {
  const kinds = await scan(row.text)
  const found = kinds.length > 0
  for (const t of [
    overall,
    byForm.get(row.form ?? '?'),
    byFamily.get(kindFamily(row.kind ?? '?', row.label)),
    bySource.get(row.source ?? '?'),
  ]) {
    countRow(t, row.label, found)
  }
  noteMiss(row, `${row.form}/${row.kind}`, kinds)
}
const trainMs = (performance.now() - started) / heldOut.length
const withoutTemplated = newTally()
for (const form of ['snippet', 'bare']) {
  const t = byForm.get(form)
  for (const key of ['tp', 'fn', 'fp', 'tn'] as const) withoutTemplated[key] += t[key]
}

console.log(
  `### secrets-train.jsonl, ${side === 'test' ? 'held-out test' : 'TRAIN (tuning side, not a result)'} split: ${heldOut.length} of ${train.rows.length} rows (${side === 'test' ? TEST_SHARE * 100 : (1 - TEST_SHARE) * 100}% of groups, seed '${SPLIT_SEED}'), ${trainMs.toFixed(3)} ms/row\n`,
)
console.log(
  `**recall ${pct(overall.tp, overall.tp + overall.fn)} at FPR ${pct(overall.fp, overall.fp + overall.tn)}** (precision ${pct(overall.tp, overall.tp + overall.fp)}, F1 ${f1(overall)}); without templated rows: recall ${pct(withoutTemplated.tp, withoutTemplated.tp + withoutTemplated.fn)}, FPR ${pct(withoutTemplated.fp, withoutTemplated.fp + withoutTemplated.tn)}\n`,
)
console.log(
  `by form (templated rows were written by the dataset's build script: a value in a config/chat/CLI template)\n\n${byForm.table()}\n`,
)
console.log(
  `by kind family (positives: provider family of the trufflehog detector; negatives: neg:<class>)\n\n${byFamily.table()}\n`,
)
console.log(`by source\n\n${bySource.table()}\n`)

// 2. secrets-dev.jsonl
const devOverall = newTally()
const byProvider = new Breakdown()
started = performance.now()
for (const row of dev.rows) {
  const kinds = await scan(row.text)
  const { family, kinds: expected } = familyOf(row.rule_id ?? '')
  const right =
    expected === undefined
      ? undefined
      : expected === 'any' || kinds.some((k) => (expected as readonly string[]).includes(k))
  for (const t of [devOverall, byProvider.get(args.includes('--by-rule') ? (row.rule_id ?? '?') : family)]) {
    countRow(t, row.label, kinds.length > 0, right)
  }
}
const devMs = (performance.now() - started) / dev.rows.length
console.log(
  `### secrets-dev.jsonl (gitleaks test vectors; the rules were developed with this file in view, so a regression check, not a held-out result): ${dev.rows.length} rows, ${devMs.toFixed(3)} ms/row\n`,
)
console.log(
  `**recall ${pct(devOverall.tp, devOverall.tp + devOverall.fn)} at FPR ${pct(devOverall.fp, devOverall.fp + devOverall.tn)}** (precision ${pct(devOverall.tp, devOverall.tp + devOverall.fp)}, F1 ${f1(devOverall)}, right kind ${pct(devOverall.rightKind, devOverall.kindJudged)})\n`,
)
if (args.includes('--by-family') || args.includes('--by-rule')) console.log(`${byProvider.table()}\n`)

// 3. benign prompts and tool results (injection-train.jsonl label 0): how many would be changed
const benign = loadRows('injection-train.jsonl')
if ('rows' in benign) {
  const byChannel = new Map<string, { flagged: number; total: number; kinds: Map<string, number> }>()
  for (const row of benign.rows as Array<SecretRow & { channel?: string }>) {
    if (row.label !== 0) continue
    const kinds = await scan(row.text)
    const channel = row.channel ?? 'user'
    const tally = byChannel.get(channel) ?? { flagged: 0, total: 0, kinds: new Map() }
    byChannel.set(channel, tally)
    tally.total++
    if (kinds.length) tally.flagged++
    for (const kind of new Set(kinds.map((k) => k.split('/')[0])))
      tally.kinds.set(kind, (tally.kinds.get(kind) ?? 0) + 1)
  }
  console.log(
    '### benign texts with any finding (injection-train.jsonl, label 0; tool results include real passwords in JSON, which are hits)\n',
  )
  console.log('| channel | texts | with a finding | share | by kind |\n|---|---|---|---|---|')
  for (const [channel, t] of byChannel) {
    const kinds = [...t.kinds]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')
    console.log(`| ${channel} | ${t.total} | ${t.flagged} | ${pct(t.flagged, t.total)} | ${kinds} |`)
  }
  console.log('')
}

// 4. secretlint on the same rows
if (!args.includes('--no-secretlint')) {
  const lintRow = async (rows: readonly SecretRow[]) => {
    const t = newTally()
    const begun = performance.now()
    for (const row of rows) countRow(t, row.label, (await secretlintScan(row.text)).length > 0)
    return { t, ms: (performance.now() - begun) / rows.length }
  }
  const line = (name: string, t: Tally, ms: number) =>
    `| ${name} | ${pct(t.tp, t.tp + t.fn)} | ${pct(t.fp, t.fp + t.tn)} | ${pct(t.tp, t.tp + t.fp)} | ${f1(t)} | ${ms.toFixed(3)} |`
  const lintTrain = await lintRow(heldOut)
  const lintDev = await lintRow(dev.rows)
  console.log('### cross-check: secretlint preset-recommend 12 (AWS id scan on), same rows\n')
  console.log('| scanner, rows | recall | FPR | precision | F1 | ms/row |\n|---|---|---|---|---|---|')
  console.log(line(`scan_secrets, secrets-train ${side}`, overall, trainMs))
  console.log(line(`secretlint, secrets-train ${side}`, lintTrain.t, lintTrain.ms))
  console.log(line('scan_secrets, secrets-dev', devOverall, devMs))
  console.log(line('secretlint, secrets-dev', lintDev.t, lintDev.ms))
}

if (misses.length) console.log(`\n### misses\n\n${misses.join('\n')}`)
