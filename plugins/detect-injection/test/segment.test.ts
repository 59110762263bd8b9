import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { WHITESPACE } from '../src/needle-index.js'
import { type Segment, splitSentences } from '../src/segment.js'

/** splitSentences as first written: trimming with `/\s/` per character. */
function referenceSentences(text: string): Segment[] {
  const out: Segment[] = []
  const boundary = /[.!?。！？]+(?=\s|$)|\n|\|/g
  let from = 0
  const push = (start: number, end: number) => {
    while (start < end && /\s/.test(text[start])) start++
    while (end > start && /\s/.test(text[end - 1])) end--
    if (end > start) out.push({ start, end, text: text.slice(start, end) })
  }
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    const end = m[0] === '\n' || m[0] === '|' ? m.index : m.index + m[0].length
    push(from, end)
    from = m.index + m[0].length
  }
  push(from, text.length)
  return out
}

describe('splitSentences', () => {
  it('knows every code unit /\\s/ matches, and no other', () => {
    const listed = new Set(WHITESPACE)
    for (let c = 0; c < 0x10000; c++)
      assert.equal(listed.has(c), /\s/.test(String.fromCharCode(c)), `U+${c.toString(16)}`)
  })

  it('cuts and trims as the pattern-cut and pattern-trimmed version did', () => {
    const pieces = [
      'word',
      'Ab',
      '.',
      '!',
      '?',
      '。',
      '！',
      '？',
      '|',
      '\n',
      ' ',
      '\t',
      '\u00a0',
      '\u3000',
      '\ufeff',
      '\u2028',
      'é',
      '\ud83d\ude00',
      '...',
    ]
    let seed = 5
    const texts = ['', ' ', '.', '\n\n', 'One. Two! Three? Four', 'a | b\nc']
    for (let k = 0; k < 6000; k++) {
      let text = ''
      for (let i = 0, length = k % 25; i < length; i++) {
        seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0
        text += pieces[seed % pieces.length]
      }
      texts.push(text)
    }
    for (const text of texts)
      assert.deepEqual(splitSentences(text), referenceSentences(text), JSON.stringify(text))
  })
})
