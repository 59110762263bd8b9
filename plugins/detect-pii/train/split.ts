import { createHash } from 'node:crypto'

/**
 * The fixed held-out split of the training files. A document is held out when
 * the SHA-256 of seed + its key falls in the first {@link HELD_OUT_SHARE} of
 * the range. Training, calibration and threshold choice never read held-out
 * rows; `eval/eval.ts` reads only them (plus pii-dev, which training never reads).
 */
export const SPLIT_SEED = 'gov-detect-pii-split-1'
/** Share of documents held out. */
export const HELD_OUT_SHARE = 0.15
/** Share of the remaining (training) documents kept aside to fit the softmax temperature. */
export const CALIBRATION_SHARE = 0.1

function unit(key: string, salt: string): number {
  const digest = createHash('sha256').update(`${SPLIT_SEED}:${salt}:${key}`).digest()
  return digest.readUInt32BE(0) / 2 ** 32
}

/** True for a held-out document (`key`: the row id, or the text for rows without one). */
export function isHeldOut(key: string): boolean {
  return unit(key, 'held-out') < HELD_OUT_SHARE
}

/** True for a training document kept aside for calibration (never for a held-out one). */
export function isCalibration(key: string): boolean {
  return !isHeldOut(key) && unit(key, 'calibration') < CALIBRATION_SHARE
}

/** Path of a file in ../shared/datasets, from a compiled file in `dist/<dir>/`. */
export const DATASETS = new URL('../../../../../shared/datasets/', import.meta.url)
