/**
 * Writes `model/languages.txt`: programming, data and markup language names
 * and aliases from GitHub Linguist (`linguist-languages`, MIT), one lower-case
 * word a line. Run offline when the package is updated:
 *
 *   node plugins/detect-pii/dist/train/build-languages.js
 *
 * Shipping the extracted words instead of importing the package at run time
 * saves its load (the package carries every language's metadata).
 */
import { writeFileSync } from 'node:fs'
import { LANGUAGES_URL } from '../src/entities/tech-terms.js'

const languages = (await import('linguist-languages')) as unknown as Record<
  string,
  { name?: string; aliases?: string[]; type?: string } | undefined
>
const terms = new Set<string>()
for (const language of Object.values(languages)) {
  if (!language?.name || language.type === 'prose') continue
  for (const value of [language.name, ...(language.aliases ?? [])]) {
    const key = value.toLowerCase()
    // One-letter names (C, R, D) and multi-word names are not looked up as single words.
    if (key.length >= 2 && !key.includes(' ')) terms.add(key)
  }
}
writeFileSync(LANGUAGES_URL, `${[...terms].sort().join('\n')}\n`)
console.log(`wrote ${terms.size} words to ${LANGUAGES_URL.pathname}`)
