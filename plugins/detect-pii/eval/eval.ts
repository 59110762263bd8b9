/**
 * Quality of `detect_pii` on data it was not trained or tuned on, as the host
 * runs it (the step's onRequest hook, default settings, action `allow`):
 *
 * 1. the held-out split of ../shared/datasets/pii-train.jsonl (fixed by
 *    `train/split.ts`; never read by training or calibration), per type and per
 *    source, each type scored only on documents whose `annotated_types` list it;
 * 2. ../shared/datasets/pii-dev.jsonl (never read by training);
 * 3. the share of ordinary words masked: words of held-out NER documents
 *    outside every gold span that a finding covers;
 * 4. benign prompts: the held-out part of the label-0 `user` rows of
 *    injection-train.jsonl. A prompt with any finding is changed under
 *    `standard` (mask) and refused under `strict` (block).
 *
 * Match rule: a gold span counts as found when a finding of the mapped type
 * overlaps it by at least one character; a finding is correct when it overlaps
 * a gold span of its type.
 *
 *   node plugins/detect-pii/dist/eval/eval.js [--errors TYPE] [--tune] [--locations all] [--organizations all] [--sample N]
 *
 * The LOCATION and ORGANIZATION rows say what the tagger finds with `--locations all` and
 * `--organizations all`; the defaults (`personal`) keep only places and organisations beside a person's data,
 * which NER sentences seldom are. The benign rows are read with the defaults.
 *
 * 5. changed wrongly: a benign prompt is changed *correctly* when every
 *    finding in it is personal data (a real or fictional person's name, a
 *    contact detail, an address; a public figure's name counts, since the
 *    detector cannot know who is public), and *wrongly* when at least one
 *    finding is not (an ordinary word, a title, a product, a place on its own,
 *    a public body). `eval/benign-labels.json` holds hand labels of the
 *    findings in a seeded sample of the changed held-out prompts, keyed by a
 *    hash of prompt and finding (no text of the data set); `--sample N` prints
 *    the N sampled prompts with their findings' keys for labelling. Findings
 *    without a label are counted and reported, never guessed.
 *
 * `--tune` prints the findings on the tuning (non-held-out) benign prompts,
 * the only benign rows that may be read while changing rules, and scores the
 * calibration documents of pii-train instead of the held-out ones (pii-dev is
 * skipped), so rules can be checked for lost names without reading held-out
 * numbers.
 *
 * 6. strict: with action `block`, `block_min_score` (`--block-min-score`,
 *    default 0.8) and `mask_only_types` (`--mask-only`, default
 *    ORGANIZATION; an empty string for none), the values the host's `strict`
 *    preset sets, chosen with `train/block-threshold.ts`, never here: a call
 *    is refused when it has a structured finding or a name scoring at least
 *    that, of a type not in the list; the others are masked. Reported: per type, the share of held-out gold spans that would
 *    refuse the call against the share found at all, and the benign prompts
 *    refused, overall and (from the hand labels) those changed only by wrong
 *    findings, i.e. without personal data.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin from '../src/index.js'
import { ENTITY_TYPES, PII_TYPES, type PiiType } from '../src/pii-types.js'
import { withDefaults } from '../src/settings.js'
import { DATASETS, isCalibration, isHeldOut } from '../train/split.js'

interface Row {
  id: string
  text: string
  source: string
  spans: { type: string; start: number; end: number; value?: string }[]
  annotated_types?: string[]
}
interface Span {
  type: string
  start: number
  end: number
  score?: number
}

/** Dataset type → step type. DATE_TIME is any date; the step looks for dates of birth only. */
const TYPE_MAP: Record<string, PiiType> = {
  PERSON: 'PERSON',
  LOCATION: 'LOCATION',
  ORGANIZATION: 'ORGANIZATION',
  ADDRESS: 'STREET_ADDRESS',
  STREET_ADDRESS: 'STREET_ADDRESS',
  EMAIL_ADDRESS: 'EMAIL_ADDRESS',
  PHONE_NUMBER: 'PHONE_NUMBER',
  CREDIT_CARD: 'CREDIT_CARD',
  IBAN_CODE: 'IBAN_CODE',
  US_SSN: 'US_SSN',
  IP_ADDRESS: 'IP_ADDRESS',
  DATE_TIME: 'DATE_OF_BIRTH',
}
const ALL = 'ALL (any type)'
const NO_GEO = 'ALL except LOCATION'

const read = (name: string): Row[] =>
  readFileSync(new URL(name, DATASETS), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))

if (!existsSync(new URL('pii-train.jsonl', DATASETS))) {
  console.log(
    `eval skipped: ${new URL('.', DATASETS).pathname} has no pii-train.jsonl (the datasets live in ../shared/datasets/ beside the repo)`,
  )
  process.exit(0)
}
const argument = (name: string) =>
  process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : undefined
const errorsFor = argument('errors')
const tune = process.argv.includes('--tune')
const locations = (argument('locations') ?? 'personal') as 'personal' | 'all'
const organizations = (argument('organizations') ?? 'personal') as 'personal' | 'all'
/** strict's `block_min_score` and `mask_only_types` (host/src/chain/presets.ts). */
const blockMinScore = Number(argument('block-min-score') ?? 0.8)
const maskOnly = new Set((argument('mask-only') ?? 'ORGANIZATION').split(',').filter(Boolean))
const NAMES = new Set<string>(ENTITY_TYPES)
/** True when a finding refuses the call under action `block` (as `PiiStep` decides). */
const refuses = (p: Span) => !maskOnly.has(p.type) && (!NAMES.has(p.type) || (p.score ?? 0) >= blockMinScore)

const step = await plugin.create(
  withDefaults({ action: 'allow', locations, organizations }),
  makeServices('detect_pii'),
)
await step.ready?.()

async function findings(text: string): Promise<Span[]> {
  const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]))
  await step.onRequest?.(ctx)
  return ctx.findings.map((f) => ({
    type: f.type,
    start: f.span?.start ?? 0,
    end: f.span?.end ?? 0,
    score: f.score,
  }))
}

type Counts = { gold: number; found: number; pred: number; correct: number; refused: number }
const zero = (): Counts => ({ gold: 0, found: 0, pred: 0, correct: 0, refused: 0 })
const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end
const ratio = (n: number, d: number) => (d === 0 ? '–' : (n / d).toFixed(3))

interface Report {
  byType: Map<string, Counts>
  bySource: Map<string, Map<string, Counts>>
  words: number
  maskedWords: number
  docs: number
  /** Documents with a person's data (an annotated type other than LOCATION and ORGANIZATION), and those strict refuses. */
  personalDocs: number
  refusedDocs: number
}

async function score(rows: Row[], useAnnotations: boolean): Promise<Report> {
  const report: Report = {
    byType: new Map(),
    bySource: new Map(),
    words: 0,
    maskedWords: 0,
    docs: rows.length,
    personalDocs: 0,
    refusedDocs: 0,
  }
  for (const row of rows) {
    const preds = await findings(row.text)
    const annotated = useAnnotations && row.annotated_types ? new Set(row.annotated_types) : undefined
    const scored = (datasetType: string) => !annotated || annotated.has(datasetType)
    const gold = row.spans
      .filter((s) => TYPE_MAP[s.type] && scored(s.type))
      .map((s) => ({ type: TYPE_MAP[s.type], start: s.start, end: s.end }))
    const scoredTypes = new Set<string>(
      annotated ? [...annotated].map((t) => TYPE_MAP[t]).filter(Boolean) : PII_TYPES,
    )
    if (!annotated) scoredTypes.delete('DATE_OF_BIRTH')
    const tables = [report.byType, sourceTable(report, row.source)]
    const bump = (type: string, key: keyof Counts) => {
      for (const table of tables) {
        const c = table.get(type) ?? zero()
        c[key]++
        table.set(type, c)
      }
    }
    if (gold.some((g) => g.type !== 'LOCATION' && g.type !== 'ORGANIZATION')) {
      report.personalDocs++
      if (preds.some(refuses)) report.refusedDocs++
    }
    for (const g of gold) {
      const hit = preds.some((p) => p.type === g.type && overlaps(p, g))
      if (preds.some((p) => p.type === g.type && overlaps(p, g) && refuses(p))) bump(g.type, 'refused')
      const any = preds.some((p) => overlaps(p, g))
      for (const type of [g.type, ALL, ...(g.type === 'LOCATION' ? [] : [NO_GEO])]) {
        bump(type, 'gold')
        if (type === g.type ? hit : any) bump(type, 'found')
      }
      if (!hit && errorsFor === g.type)
        console.log(
          `MISS ${g.type}: ${JSON.stringify(row.text.slice(g.start, g.end))} | ${JSON.stringify(row.text.slice(0, 200))}`,
        )
    }
    for (const p of preds) {
      if (!scoredTypes.has(p.type)) continue
      const ok = gold.some((g) => g.type === p.type && overlaps(p, g))
      bump(p.type, 'pred')
      if (ok) bump(p.type, 'correct')
      if (!ok && errorsFor === p.type)
        console.log(
          `FP   ${p.type}: ${JSON.stringify(row.text.slice(p.start, p.end))} | ${JSON.stringify(row.text.slice(0, 200))}`,
        )
    }
    // Ordinary words: only in documents where every kind of name is annotated (so an unmarked word is no name).
    if (annotated?.has('PERSON') && annotated.has('LOCATION') && annotated.has('ORGANIZATION')) {
      const marked = row.spans
      for (const m of row.text.matchAll(/\p{L}[\p{L}\p{M}'-]*/gu)) {
        const word = { type: '', start: m.index, end: m.index + m[0].length }
        if (marked.some((s) => overlaps(s, word))) continue
        report.words++
        if (preds.some((p) => overlaps(p, word))) report.maskedWords++
      }
    }
  }
  return report
}

function sourceTable(report: Report, source: string): Map<string, Counts> {
  const key = source.split(':')[0]
  let table = report.bySource.get(key)
  if (!table) {
    table = new Map()
    report.bySource.set(key, table)
  }
  return table
}

function printTypes(title: string, table: Map<string, Counts>): void {
  console.log(`### ${title}\n`)
  console.log('| type | gold | predicted | precision | recall | F1 |')
  console.log('|---|---:|---:|---:|---:|---:|')
  for (const type of [...PII_TYPES, NO_GEO, ALL]) {
    const c = table.get(type)
    if (!c) continue
    const p = c.pred ? c.correct / c.pred : 0
    const r = c.gold ? c.found / c.gold : 0
    const f1 = p + r ? (2 * p * r) / (p + r) : 0
    const rowType = type === ALL || type === NO_GEO ? `${type} (recall: covered by any finding)` : type
    console.log(
      `| ${rowType} | ${c.gold} | ${type === ALL || type === NO_GEO ? '–' : c.pred} | ${type === ALL || type === NO_GEO ? '–' : ratio(c.correct, c.pred)} | ${ratio(c.found, c.gold)} | ${type === ALL || type === NO_GEO || !c.pred || !c.gold ? '–' : f1.toFixed(3)} |`,
    )
  }
  console.log('')
}

function printSources(table: Map<string, Map<string, Counts>>): void {
  console.log('### Per source (recall per type; precision over all entity findings)\n')
  const types = [
    'PERSON',
    'LOCATION',
    'ORGANIZATION',
    'EMAIL_ADDRESS',
    'PHONE_NUMBER',
    'CREDIT_CARD',
    'IBAN_CODE',
  ]
  console.log(`| source | ${types.join(' | ')} | ${NO_GEO} |`)
  console.log(`|---|${types.map(() => '---:').join('|')}|---:|`)
  for (const [source, t] of [...table].sort()) {
    const cell = (type: string) => {
      const c = t.get(type)
      return c?.gold ? `${ratio(c.found, c.gold)} (${c.gold})` : '–'
    }
    console.log(`| ${source} | ${types.map(cell).join(' | ')} | ${cell(NO_GEO)} |`)
  }
  console.log('')
}

const started = performance.now()
// With --tune, the calibration documents (read while choosing rules) stand in for the held-out ones.
const train = read('pii-train.jsonl').filter((r) => (tune ? isCalibration(r.id) : isHeldOut(r.id)))
const heldOut = await score(train, true)
console.log(
  `# detect_pii eval — ${new Date().toISOString().slice(0, 10)}, default settings (locations: ${locations}, organizations: ${organizations})\n`,
)
console.log(
  'Match rule: a gold span is found when a finding of its type overlaps it; precision counts findings that overlap a gold span of their type.\n',
)
console.log(
  `## pii-train.jsonl, ${tune ? 'calibration' : 'held-out'} split (${heldOut.docs} documents, seed in train/split.ts)\n`,
)
printTypes('Per type (each type scored only on documents that annotate it)', heldOut.byType)
printSources(heldOut.bySource)
console.log(
  `Ordinary words masked: ${heldOut.maskedWords} of ${heldOut.words} words outside every gold span (${((100 * heldOut.maskedWords) / Math.max(heldOut.words, 1)).toFixed(2)} %)\n`,
)
console.log(
  `### Under strict (action block, block_min_score ${blockMinScore}, mask_only_types ${[...maskOnly].join(',') || 'none'}): found spans that refuse the call, the rest are masked\n`,
)
console.log('| type | gold | found (refused or masked) | refused | masked instead |')
console.log('|---|---:|---:|---:|---:|')
for (const type of PII_TYPES) {
  const c = heldOut.byType.get(type)
  if (!c?.gold) continue
  console.log(
    `| ${type} | ${c.gold} | ${ratio(c.found, c.gold)} | ${ratio(c.refused, c.gold)} | ${ratio(c.found - c.refused, c.gold)} |`,
  )
}
console.log(
  `\nDocuments with a person's data (a gold span of a type other than LOCATION and ORGANIZATION): ${heldOut.personalDocs}; refused under strict ${heldOut.refusedDocs} (${((100 * heldOut.refusedDocs) / Math.max(heldOut.personalDocs, 1)).toFixed(1)} %) (with block_min_score 0 every document with a finding is refused).\n`,
)

if (!tune) {
  const dev = await score(read('pii-dev.jsonl'), false)
  console.log(`## pii-dev.jsonl (${dev.docs} documents, never used for training)\n`)
  printTypes('Per type', dev.byType)
}

const benign = read('injection-train.jsonl').filter(
  (r) =>
    (r as unknown as { label: number; channel: string }).label === 0 &&
    (r as unknown as { channel: string }).channel === 'user',
)
const part = benign.filter((r) => isHeldOut(r.text) !== tune)
let changed = 0
let refused = 0
const byType = new Map<string, number>()
const sampleSize = Number(argument('sample') ?? 0)
const labelsUrl = new URL('../../eval/benign-labels.json', import.meta.url)
const labels: Record<string, 'pii' | 'not'> = existsSync(labelsUrl)
  ? JSON.parse(readFileSync(labelsUrl, 'utf8'))
  : {}
const findingKey = (text: string, p: Span) =>
  createHash('sha256')
    .update(`${text}\0${p.type}:${text.slice(p.start, p.end)}`)
    .digest('hex')
    .slice(0, 16)
/** Seeded sample: changed held-out prompts whose text hash falls lowest. */
const sampleRank = (text: string) =>
  createHash('sha256').update(`gov-detect-pii-benign-sample-1:${text}`).digest().readUInt32BE(0)
const changedRows: { text: string; preds: Span[] }[] = []
for (const row of part) {
  const preds = await findings(row.text)
  if (preds.length === 0) continue
  changed++
  if (preds.some(refuses)) refused++
  changedRows.push({ text: row.text, preds })
  for (const t of new Set(preds.map((p) => p.type))) byType.set(t, (byType.get(t) ?? 0) + 1)
  if (tune)
    console.log(
      `${preds.some(refuses) ? 'REFUSED' : 'CHANGED'} ${preds.map((p) => `${p.type}:${JSON.stringify(row.text.slice(p.start, p.end))}:${(p.score ?? 0).toFixed(2)}`).join(' ')} | ${JSON.stringify(row.text.slice(0, 160))}`,
    )
}
const LABELLED_SAMPLE = 300
const sample = [...changedRows]
  .sort((a, b) => sampleRank(a.text) - sampleRank(b.text))
  .slice(0, Math.max(sampleSize, LABELLED_SAMPLE))
if (sampleSize > 0)
  for (const { text, preds } of sample.slice(0, sampleSize))
    console.log(
      `SAMPLE ${JSON.stringify(text.slice(0, 300))}\n${preds.map((p) => `  ${findingKey(text, p)} ${p.type}:${JSON.stringify(text.slice(p.start, p.end))} ${labels[findingKey(text, p)] ?? '?'}`).join('\n')}`,
    )
let labelled = 0
let wrong = 0
let onlyWrong = 0
let unlabelled = 0
let onlyWrongRefused = 0
const wrongByType = new Map<string, number>()
for (const { text, preds } of tune ? [] : sample.slice(0, LABELLED_SAMPLE)) {
  const verdicts = preds.map((p) => labels[findingKey(text, p)])
  if (verdicts.some((v) => v === undefined)) {
    unlabelled++
    continue
  }
  labelled++
  if (verdicts.includes('not')) wrong++
  if (verdicts.every((v) => v === 'not')) {
    onlyWrong++
    if (preds.some(refuses)) onlyWrongRefused++
  }
  preds.forEach((p, i) => {
    if (verdicts[i] === 'not') wrongByType.set(p.type, (wrongByType.get(p.type) ?? 0) + 1)
  })
}
console.log(
  `## Benign prompts (${tune ? 'tuning' : 'held-out'} part of injection-train.jsonl label 0, channel user: ${part.length} prompts)\n`,
)
console.log(
  `Changed under \`standard\` (mask) = refused with action block and block_min_score 0 (strict before 0.6.0): ${changed} (${((100 * changed) / Math.max(part.length, 1)).toFixed(2)} %); by type: ${[...byType].map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}. Blocked under \`standard\`: none (its action is mask). Many of these prompts do name people: see the hand-labelled line below.\n`,
)
const changedShare = changed / Math.max(part.length, 1)
const share = (n: number, of: number) => (changedShare * (n / of) * 100).toFixed(1)
/**
 * 95 % Wilson interval of n/of, scaled by the changed share (the share of all
 * benign prompts). The changed share is counted on every held-out prompt, so
 * the interval is that of the sampled proportion.
 */
function interval(n: number, of: number): string {
  const z = 1.96
  const p = n / of
  const centre = (p + (z * z) / (2 * of)) / (1 + (z * z) / of)
  const half = (z / (1 + (z * z) / of)) * Math.sqrt((p * (1 - p)) / of + (z * z) / (4 * of * of))
  const pct = (x: number) => (changedShare * Math.min(1, Math.max(0, x)) * 100).toFixed(1)
  return `95 % interval ${pct(centre - half)}–${pct(centre + half)} %`
}
if (!tune)
  console.log(
    `Changed wrongly (hand labels, \`eval/benign-labels.json\`, seeded sample of ${LABELLED_SAMPLE} changed prompts): ${labelled} fully labelled, ${unlabelled} with a finding not labelled yet; ${wrong} of ${labelled} have a wrong finding${labelled ? ` (est. ${share(wrong, labelled)} % of all benign prompts, ${interval(wrong, labelled)})` : ''}, ${onlyWrong} of ${labelled} were changed only by wrong findings, i.e. would be unchanged by a perfect detector${labelled ? ` (est. ${share(onlyWrong, labelled)} % of all benign prompts, ${interval(onlyWrong, labelled)})` : ''}; wrong findings by type: ${[...wrongByType].map(([t, n]) => `${t} ${n}`).join(', ') || 'none'}.\n`,
  )
console.log(
  `Refused under \`strict\` (action block, block_min_score ${blockMinScore}, mask_only_types ${[...maskOnly].join(',') || 'none'}; the rest of the changed prompts are masked): ${refused} (${((100 * refused) / Math.max(part.length, 1)).toFixed(2)} %).${tune ? '' : ` Without personal data (changed only by wrong findings, hand labels) and refused: ${onlyWrongRefused} of ${labelled}${labelled ? ` (est. ${share(onlyWrongRefused, labelled)} % of all benign prompts, ${interval(onlyWrongRefused, labelled)})` : ''}.`}\n`,
)
console.log(`_${((performance.now() - started) / 1000).toFixed(1)} s_`)
await step.close?.()
