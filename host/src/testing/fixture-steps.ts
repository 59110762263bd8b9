/**
 * Step plugins for tests: they prove chain order, each verdict kind, edits,
 * observe mode, flags, readiness and hook error isolation without depending on
 * the real detectors.
 */
import { CORE_VERSION, defineStep, type StepPlugin, Type, Verdicts } from '@gov/core'

const core = `^${CORE_VERSION}`

/** Every hook call, in order, as `step:phase` (shared by all fixture steps). */
export const hookLog: string[] = []

function traced(name: string, extra: Partial<StepPlugin> = {}): StepPlugin {
  return defineStep({
    name,
    packageName: `fixture:${name}`,
    version: '0.0.0',
    core,
    description: `test fixture ${name}`,
    settings: Type.Object({}, { additionalProperties: false }),
    create: () => ({
      onRequest: () => {
        hookLog.push(`${name}:request`)
        return Verdicts.continue()
      },
      onBufferedResponse: () => {
        hookLog.push(`${name}:response`)
        return Verdicts.continue()
      },
      onToolCall: (ctx) => {
        hookLog.push(`${name}:tool_call:${ctx.toolCall.name}`)
        return Verdicts.continue()
      },
    }),
    ...extra,
  }) as StepPlugin
}

/** Records its hooks; changes nothing. */
export const passThroughStep = traced('fx_pass')

/** A second pass-through, to prove order. */
export const secondPassStep = traced('fx_second')

/**
 * Blocks when a text contains `word` (setting), reporting a finding of level
 * `level`; `mode` is its caller flag (`fx=off|on`, on is stricter).
 */
export const blockWordStep = defineStep({
  name: 'fx_block',
  packageName: 'fixture:fx_block',
  version: '0.0.0',
  core,
  description: 'blocks a configured word',
  settings: Type.Object(
    {
      word: Type.String({ default: 'forbidden' }),
      level: Type.Union(
        [Type.Literal('internal'), Type.Literal('confidential'), Type.Literal('restricted')],
        { default: 'confidential' },
      ),
      strictness: Type.Union([Type.Literal('off'), Type.Literal('on')], { default: 'on' }),
    },
    { additionalProperties: false },
  ),
  flags: { fx: { setting: 'strictness', values: ['off', 'on'] } },
  create: (settings) => ({
    onRequest: (ctx) => {
      const strict = (ctx.call.flags.get('fx') ?? settings.strictness) === 'on'
      for (const m of ctx.exchange.messages) {
        for (const part of m.parts) {
          const at = part.text.indexOf(settings.word)
          if (at >= 0) {
            ctx.report({
              type: 'fx_word',
              score: 1,
              level: settings.level,
              span: { partId: part.id, start: at, end: at + settings.word.length },
              source: part.source,
              messageIndex: m.index,
            })
            if (strict) return Verdicts.block('fx_word_found', `the word is not allowed`)
          }
        }
      }
      return Verdicts.continue()
    },
    onBufferedResponse: (ctx) => {
      const strict = (ctx.call.flags.get('fx') ?? settings.strictness) === 'on'
      for (const part of ctx.answer.message.parts) {
        if (strict && part.text.includes(settings.word))
          return Verdicts.block('fx_word_in_answer', 'the answer contains the word')
      }
      return Verdicts.continue()
    },
  }),
}) as StepPlugin

/** Answers by itself when the last text asks for `cached`, without calling upstream. */
export const respondStep = defineStep({
  name: 'fx_respond',
  packageName: 'fixture:fx_respond',
  version: '0.0.0',
  core,
  description: 'answers from a cache',
  settings: Type.Object(
    { reply: Type.String({ default: 'from the gateway' }) },
    { additionalProperties: false },
  ),
  create: (settings) => ({
    onRequest: (ctx) => {
      const last = ctx.exchange.messages.at(-1)?.parts.at(-1)?.text ?? ''
      return last.includes('cached') ? Verdicts.respond({ text: settings.reply }) : Verdicts.continue()
    },
  }),
}) as StepPlugin

/** Upper-cases `secret` to `[HIDDEN]` in requests and restores it in the answer: proves edits write through. */
export const editStep = defineStep({
  name: 'fx_edit',
  packageName: 'fixture:fx_edit',
  version: '0.0.0',
  core,
  description: 'masks and restores a word',
  settings: Type.Object({}, { additionalProperties: false }),
  create: () => ({
    onRequest: (ctx) => {
      for (const m of ctx.exchange.messages)
        for (const p of m.parts)
          if (p.text.includes('secret')) p.text = p.text.replaceAll('secret', '[HIDDEN]')
      return Verdicts.continue()
    },
    onBufferedResponse: (ctx) => {
      for (const p of ctx.answer.message.parts)
        if (p.text.includes('[HIDDEN]')) p.text = p.text.replaceAll('[HIDDEN]', 'secret')
      return Verdicts.continue()
    },
  }),
}) as StepPlugin

/**
 * Changes the request outside text parts, by what the last text says: `stamp`
 * writes `metadata` into the writable `body`; `narrow` narrows the tools
 * offered to none; `peek` only reads `bodyView`. Proves which requests the
 * host serialises again and which go upstream as the caller's bytes.
 */
export const bodyStep = defineStep({
  name: 'fx_body',
  packageName: 'fixture:fx_body',
  version: '0.0.0',
  core,
  description: 'changes the body directly or narrows the tools',
  settings: Type.Object({}, { additionalProperties: false }),
  create: () => ({
    onRequest: (ctx) => {
      const last = ctx.exchange.messages.at(-1)?.parts.at(-1)?.text ?? ''
      if (last.includes('stamp')) ctx.exchange.body.metadata = { stamped: 'yes' }
      if (last.includes('narrow')) ctx.exchange.narrowTools(() => false)
      if (last.includes('peek') && ctx.exchange.bodyView?.model === undefined) throw new Error('no model')
      return Verdicts.continue()
    },
  }),
}) as StepPlugin

/** Throws in onRequest when the text contains `boom`. */
export const throwStep = defineStep({
  name: 'fx_throw',
  packageName: 'fixture:fx_throw',
  version: '0.0.0',
  core,
  description: 'throws',
  settings: Type.Object({}, { additionalProperties: false }),
  create: () => ({
    onRequest: (ctx) => {
      if (ctx.exchange.messages.some((m) => m.parts.some((p) => p.text.includes('boom'))))
        throw new Error('step exploded')
      return Verdicts.continue()
    },
  }),
}) as StepPlugin

/** Not ready until `release()` is called: proves /health/startup and call gating. */
export function slowReadyStep(): { plugin: StepPlugin; release: () => void } {
  let release = () => {}
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const plugin = defineStep({
    name: 'fx_slow',
    packageName: 'fixture:fx_slow',
    version: '0.0.0',
    core,
    description: 'loads slowly',
    settings: Type.Object({}, { additionalProperties: false }),
    create: () => ({ ready: () => gate, onRequest: () => Verdicts.continue() }),
  }) as StepPlugin
  return { plugin, release }
}

/** All fixture plugins that need no per-test state. */
export const fixtureSteps: StepPlugin[] = [
  passThroughStep,
  secondPassStep,
  blockWordStep,
  respondStep,
  editStep,
  bodyStep,
  throwStep,
]
