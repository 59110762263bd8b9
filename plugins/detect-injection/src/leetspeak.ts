/**
 * Leetspeak: digits and symbols written for letters (`1gn0r3`). The detector
 * folds them back and re-runs the rules only when folding reveals a word
 * attacks use that the text did not show before.
 */

/** Stems of words attacks use; every one has a letter no leet character stands for. */
export const LEET_STEMS =
  /ignor|instruct|prompt|system|previous|forget|disregard|jailbreak|pretend|password|secret|reveal|bypass|override|restrict|polic/

/** Leet character → the letter it stands for. */
export const LEET_MAP: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
}

/** Length of the shortest stem: a shorter run of letters cannot hide one. */
export const SHORTEST_STEM = Math.min(...LEET_STEMS.source.split('|').map((stem) => stem.length))

/** Replace every leet character by its letter. */
export function foldLeet(text: string): string {
  return text.replace(/[013457@$]/g, (c) => LEET_MAP[c] ?? c)
}
