/**
 * The int8 weights of 0.5.5 against the int16 weights of 0.5.4, on the texts
 * the tests share (fixtures.ts), each on both channels: every verdict at the
 * default threshold is the same, and every tool-channel score close to 0.5.4's
 * (within 0.15 on the logit scale). The direct model was retrained in 0.5.7
 * (source weights and sign-stable features, README, Quality): its scores moved,
 * so for it only the verdicts are pinned.
 * `eval/verdict-diff.js` does the same over every text of the data (33,012
 * rows: README, Performance, 0.5.5); this pins a fixed set in the tests.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { loadDetector } from '../src/model-file.js'
import { BENIGN_LOOKALIKES, BENIGN_TOOL_RESULTS, DIRECT_ATTACKS, TOOL_ATTACKS } from './fixtures.js'

/** Scores of 0.5.4 (int16 weights), [direct, tool], in the order of {@link TEXTS}, rounded to 4 places. */
const SCORES_0_5_4: readonly (readonly [number, number])[] = [
  [0.9999, 0.9997],
  [0.9911, 0.9891],
  [0.9997, 0.9724],
  [0.9997, 0.9852],
  [0.9995, 0.916],
  [0.999, 0.9921],
  [0.9997, 0.9703],
  [0.9389, 0.6604],
  [0.9413, 0.7374],
  [0.9933, 0.9452],
  [0.9994, 0.9992],
  [0.9968, 0.987],
  [0.9956, 0.9878],
  [0.9833, 0.9336],
  [0.9988, 0.9891],
  [1, 0.9975],
  [0.8785, 0.8769],
  [0.9996, 0.9745],
  [0.3171, 0.9795],
  [0.3048, 0.9942],
  [0.9942, 0.7535],
  [0.0081, 0.0009],
  [0.3053, 0.2057],
  [0.0573, 0.0115],
  [0.2839, 0.0221],
  [0.1841, 0.0595],
  [0.0844, 0.0458],
  [0.057, 0.0305],
  [0.0699, 0.3126],
  [0.1137, 0.0086],
  [0.0789, 0.0025],
  [0.0825, 0.4077],
  [0.05, 0.0075],
  [0.0584, 0.008],
  [0.0226, 0.0028],
  [0.0493, 0.0176],
  [0.0882, 0.0148],
  [0.1069, 0.034],
  [0.0526, 0.0294],
  [0.4063, 0.4742],
  [0.3871, 0.226],
  [0.1229, 0.1507],
  [0.0828, 0.1478],
  [0.7357, 0.0102],
  [0.0517, 0.0203],
  [0.1757, 0.0735],
]

const logit = (p: number) => Math.log(p / (1 - p))

const TEXTS = [
  ...Object.values(DIRECT_ATTACKS),
  ...Object.values(TOOL_ATTACKS),
  ...BENIGN_LOOKALIKES,
  ...BENIGN_TOOL_RESULTS,
]

describe('detect_injection int8 weights (0.5.5)', () => {
  it('gives every fixture text the verdict and nearly the score of the int16 weights (0.5.4)', () => {
    assert.equal(TEXTS.length, SCORES_0_5_4.length, 'the fixtures changed: re-record the table with 0.5.4')
    const detector = loadDetector()
    let blocked = 0
    TEXTS.forEach((text, i) => {
      ;(['direct', 'tool'] as const).forEach((channel, k) => {
        const before = SCORES_0_5_4[i]![k]!
        const now = detector.analyze(text, channel).score
        assert.equal(
          now >= 0.7,
          before >= 0.7,
          `${channel} ${JSON.stringify(text.slice(0, 40))}: ${before} -> ${now}`,
        )
        // On the logit scale: the rounding moves a model logit by at most ~0.09 over the data, and
        // the recalibrated tool offset by 0.049. Near 0 or 1 the table's 4 places say little about
        // the logit, so there the score itself is compared.
        const close =
          channel === 'direct' ||
          (before > 0.01 && before < 0.99
            ? Math.abs(logit(now) - logit(before)) <= 0.15
            : Math.abs(now - before) <= 0.002)
        assert.ok(close, `${channel} ${JSON.stringify(text.slice(0, 40))}: ${before} -> ${now}`)
        if (now >= 0.7) blocked++
      })
    })
    // Both sides of the threshold are in the table, so the check can fail either way.
    assert.ok(blocked > 20 && blocked < TEXTS.length * 2 - 20, `${blocked} blocked`)
  })
})
