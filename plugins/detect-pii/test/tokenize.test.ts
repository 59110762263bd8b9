import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { tokenize } from '../src/entities/tokenize.js'

// The word rules as regular expressions (how 0.1.0 tokenized): the code-unit scanner must agree with them.
const WORD = /[\p{L}\p{M}](?:[\p{L}\p{M}'’-]*[\p{L}\p{M}])?/gu
const CAMEL = /^(?!(?:Mc|Mac|De|Di|Da|La|Le|Van|Von|Du|Fitz|O'|D'))\p{L}*\p{Ll}{2}\p{Lu}/u

function referenceTokens(text: string): unknown[] {
  const out: unknown[] = []
  let previousEnd = 0
  for (const m of text.matchAll(WORD)) {
    let word = m[0]
    let possessive = false
    if (word.length > 2 && /['’]s$/i.test(word)) {
      word = word.slice(0, -2)
      possessive = true
    }
    const start = m.index
    const end = start + word.length
    let i = start - 1
    while (i >= previousEnd && (text[i] === ' ' || text[i] === '\t')) i--
    out.push({
      start,
      end,
      key: word.toLowerCase(),
      cap: /\p{Lu}/u.test(word[0]),
      allCaps: word.length > 1 && !/\p{Ll}/u.test(word),
      sentenceStart: i < 0 || /[.!?:;"“”>*•\n]/.test(text[i]),
      dot: text[end] === '.' && !possessive,
      possessive,
      codeLike:
        CAMEL.test(word) ||
        (text[end] === '.' && /\p{L}/u.test(text[end + 1] ?? '')) ||
        text[start - 1] === '.',
    })
    previousEnd = m.index + m[0].length
  }
  return out
}

const view = (text: string) =>
  tokenize(text).map((t) => ({
    start: t.start,
    end: t.end,
    key: t.key,
    cap: t.cap,
    allCaps: t.allCaps,
    sentenceStart: t.sentenceStart,
    dot: t.dot,
    possessive: t.possessive,
    codeLike: t.codeLike,
  }))

describe('tokenize', () => {
  it('agrees with the regular-expression word rules on tricky text', () => {
    for (const text of [
      "Mr. O'Neil's dog met J. R. R. Tolkien's heirs at McDonald's.",
      'Wrap.afterConnect and iPhone, eBay, DeMarco, JSON.parse(x) — NASA’s CEO',
      'Grüße an Jürgen Müller — 📧 jürgen@beispiel.de ✓ 🙂👍',
      'Звоните Александр Иванов; 東京 and नमस्ते (combining marks), e\u0301te\u0301',
      '𝐀𝐁𝐂 math letters, 𝐚𝐁 mixed, lone \ud800 surrogate and \udc00 too',
      "trailing apostrophes' and hyphens- --double--dash 's 'S x's",
      'line one\n  "Quoted" start\t*Bullet* • Item > Reply: Done?Yes!No',
      '',
    ])
      assert.deepEqual(view(text), referenceTokens(text), text)
  })
})
