import { createHash } from 'node:crypto'

/** Seed of the train/test split of secrets-train.jsonl; changing it changes which rows are held out. */
export const SPLIT_SEED = 'gov-secrets-2026'

/** Share of groups held out for testing. */
export const TEST_SHARE = 0.3

/**
 * Which side of the split a row is on, decided by its `group` (a hash of the
 * secret value): the same secret in its bare, snippet and templated forms
 * always lands on the same side, so a form seen while tuning never leaks into
 * the test numbers.
 */
export function splitOf(group: string): 'train' | 'test' {
  const digest = createHash('sha256').update(`${SPLIT_SEED}:${group}`).digest()
  return digest.readUInt32BE(0) / 2 ** 32 < TEST_SHARE ? 'test' : 'train'
}
