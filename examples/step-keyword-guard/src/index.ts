/**
 * An example of a gov step shipped by a third party: an npm package whose
 * default export is a step plugin. Install it next to gov and name it in
 * GOV_PLUGINS (`GOV_PLUGINS=gov-step-keyword-guard`); pipelines then use the
 * step `keyword_guard` through their overrides.
 */
import { defineStep, Type, Verdicts } from '@gov/core'
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js'

const Settings = Type.Object(
  {
    keywords: Type.Array(Type.String({ minLength: 1 }), {
      default: [],
      description: 'Words that trigger the step (case-insensitive).',
    }),
    action: Type.Union([Type.Literal('block'), Type.Literal('respond'), Type.Literal('report')], {
      default: 'block',
      description: 'block the call, answer it with `reply`, or only report a finding.',
    }),
    reply: Type.String({
      default: 'I cannot help with that topic.',
      description: 'The answer for action `respond`.',
    }),
  },
  { additionalProperties: false },
)

export default defineStep({
  name: 'keyword_guard',
  packageName: PACKAGE_NAME,
  version: PACKAGE_VERSION,
  core: '>=0.1.0 <0.4.0',
  description: 'Blocks, answers or reports calls whose user text mentions configured keywords.',
  settings: Settings,
  create(settings) {
    const words = settings.keywords.map((w) => w.toLowerCase())
    return {
      onRequest(ctx) {
        for (const message of ctx.exchange.messages) {
          if (message.source !== 'user') continue
          for (const part of message.parts) {
            const text = part.text.toLowerCase()
            const hit = words.find((w) => text.includes(w))
            if (!hit) continue
            const start = text.indexOf(hit)
            ctx.report({
              type: 'keyword',
              score: 1,
              level: 'internal',
              span: { partId: part.id, start, end: start + hit.length },
              source: part.source,
              messageIndex: message.index,
            })
            if (settings.action === 'block')
              return Verdicts.block('keyword_blocked', 'this topic is not allowed for this agent')
            if (settings.action === 'respond') return Verdicts.respond({ text: settings.reply })
          }
        }
        return Verdicts.continue()
      },
    }
  },
})
