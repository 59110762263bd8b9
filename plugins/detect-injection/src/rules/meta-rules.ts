/**
 * Talk about injection is not injection. A question like "explain what prompt
 * injection is" or "how do I defend against jailbreaks" names the attack
 * without performing it; these rules lower the score. They are weaker than
 * the strong rules, so an attack wrapped in "for research purposes" still
 * scores on its own phrasing.
 */
import type { Rule } from './rule.js'
import { rx } from './rx.js'

const TOPIC =
  '(?:prompt[\\s-]?injections?|jailbreak(?:s|ing)?(?:\\s+(?:prompts?|attacks?))?|injection\\s+attacks?|prompt\\s+attacks?|adversarial\\s+prompts?|llm\\s+security|ai\\s+safety)'

/** Rules that recognise discussion of attacks rather than attacks. */
export const META_RULES: readonly Rule[] = [
  {
    id: 'meta.asks_about_attacks',
    needles: ['injection', 'jailbreak', 'attack', 'adversarial', 'security', 'safety'],
    category: 'meta',
    weight: -3,
    pattern: rx(
      `\\b(?:what\\s+(?:is|are|does|do)|how\\s+(?:does|do|can|could|would|should)\\s+(?:i|we|you|one|developers?|companies|teams)?\\s*(?:defend|protect|prevent|detect|mitigate|stop|guard|test|evaluate|work)?|explain|describe|define|definition of|examples?\\s+of|types\\s+of|history\\s+of|overview\\s+of|research(?:ing)?\\s+(?:on|about|into)?|paper\\s+(?:on|about)|article\\s+(?:on|about)|blog\\s+post\\s+(?:on|about)|essay\\s+(?:on|about)|detect(?:ing|ion\\s+of)?|prevent(?:ing|ion\\s+of)?|defend(?:ing)?\\s+against|protect(?:ing)?\\s+(?:\\w+\\s+)?(?:against|from)|mitigat\\w+|guard(?:ing)?\\s+against|classif(?:y|ier\\s+for)|risks?\\s+of|why\\s+(?:is|are))\\b[^.?!\\n]{0,60}?${TOPIC}`,
    ),
  },
  {
    id: 'meta.system_prompt_authoring',
    needles: ['prompt', 'instruction'],
    category: 'meta',
    weight: -2,
    pattern: rx(
      '\\b(?:how\\s+(?:do|can|should)\\s+i\\s+(?:write|design|structure|improve|create)|tips\\s+for\\s+(?:writing|designing)|best\\s+practices\\s+for|help\\s+me\\s+(?:write|improve|draft))\\s+(?:a|an|my|the|good|better)?\\s*(?:good\\s+|better\\s+)?(?:system\\s+prompts?|prompts?|instructions)\\b',
    ),
  },
]
