import { createInterface } from 'node:readline/promises'
import type { Readable, Writable } from 'node:stream'
import { InputEndedError } from './answers.js'
import type { Ask } from './resolve-answers.js'

/**
 * An {@link Ask} over a terminal (or any line stream); `close` releases the input.
 * Lines are read through the interface's iterator, which buffers them, so
 * answers typed (or pasted) ahead of their question are not lost; end of input
 * (Ctrl+D) is a coded error, not a crash.
 */
export function terminalAsk(input: Readable, output: Writable): { ask: Ask; close(): void } {
  const rl = createInterface({ input, output, terminal: Boolean((output as { isTTY?: boolean }).isTTY) })
  const lines = rl[Symbol.asyncIterator]()
  return {
    async ask(question) {
      output.write(question)
      const next = await lines.next()
      if (next.done) throw new InputEndedError('input ended before every question was answered')
      return next.value
    },
    close: () => rl.close(),
  }
}
