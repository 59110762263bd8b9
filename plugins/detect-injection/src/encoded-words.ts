/**
 * Key words of attacks as ROT13 and reversed text shows them. The decoder
 * (decode-payloads.ts) tries ROT13 or reversing only when one of them occurs;
 * the rules' needle automaton (match-rules.ts) looks for them in the same pass
 * as the rules' needles, so the text is scanned once for both.
 */
export const ROT13_WORDS: readonly string[] = [
  'vtaber',
  'qvfertneq',
  'sbetrg',
  'cerivbhf',
  'vafgehpgvba',
  'flfgrz',
  'cebzcg',
  'wnvyoernx',
  'ehyrf',
]
export const REVERSED_WORDS: readonly string[] = [
  'erongi',
  'dragersid',
  'tegrof',
  'suoiverp',
  'snoitcurtsni',
  'tpmorp',
  'metsys',
  'kaerbliaj',
]
/** Both lists, ROT13 first: the order of the flags `findPayloads` reads. */
export const ENCODED_WORDS: readonly string[] = [...ROT13_WORDS, ...REVERSED_WORDS]
