/**
 * Softer signals that mark a prompt as an attempt to steer the model off its
 * task: dismissing the supplied context ("answer by your own knowledge, not by
 * the articles"), switching task after flattery ("Well done! Now write…"),
 * and dictating the exact output ("just say …", "repeat after me"). Alone
 * each is weak; they add to other signals and to the model's score.
 */
import type { Rule } from './rule.js'
import { B, E, phrases, rx } from './rx.js'

/** Context-dismissal, task-switch and output-hijack rules. */
export const HIJACK_RULES: readonly Rule[] = [
  {
    id: 'dismissal.own_knowledge',
    needles: [
      'article',
      'document',
      'context',
      'source',
      'text',
      'search result',
      'knowledge',
      'information in the prompt',
    ],
    category: 'dismissal',
    weight: 3.5,
    pattern: rx(
      "\\b(?:not|don'?t|do not|never|without)\\s+(?:by|from|according to|based on|using|use|look(?:ing)? (?:at|in|into)|consult(?:ing)?|rely(?:ing)? on)\\s+(?:the\\s+|any\\s+)?(?:provided\\s+|given\\s+|supplied\\s+|attached\\s+)?(?:articles?|documents?|context|sources?|texts?|search results|knowledge base)\\b|\\b(?:disregard(?:ing)?|ignor(?:e|ing)|without)\\s+(?:all\\s+|the\\s+|any\\s+)?(?:provided\\s+|given\\s+)?(?:articles?|documents?|context|sources?|search results)\\b|\\banswer\\s+(?:by|from|with|using)\\s+your\\s+own\\s+knowledge\\b|\\buse\\s+also\\s+information\\s+in\\s+the\\s+prompt\\b",
    ),
  },
  {
    id: 'task_switch.after_praise',
    needles: [
      'well done',
      'very good',
      'good job',
      'great job',
      'nice job',
      'excellent',
      'simply great',
      'congratulations',
      'perfect',
      ...phrases(["that's", 'that is', 'that was'], ['enough', 'done', 'ok', 'fine', 'great', 'fantastic']),
      'outdone yourself',
      'fantastic',
    ],
    category: 'task_switch',
    weight: 2.5,
    pattern: rx(
      "\\b(?:well done|very good|good job|great job|nice job|excellent(?: performance| work)?|simply great|congratulations|perfect|that(?:'s| is| was) (?:enough|done|ok|okay|fine|great|fantastic)|you(?:'ve| have) outdone yourself|fantastic)\\b[^\\n]{0,100}?\\b(?:now|but now|next)\\b[^\\n]{0,60}?\\b(?:task|tasks|write|help|instructions?|challenge|follow)\\b",
    ),
  },
  {
    id: 'task_switch.de_after_praise',
    needles: ['nun', 'jetzt'],
    category: 'task_switch',
    weight: 2.5,
    pattern: rx(
      `${B}(?:gut gemacht|sehr gut|ausgezeichnet\\w*|großartig|herzlichen glückwunsch|fantastisch|das genügt|das ist erledigt|das war schon mal ok)[^\\n]{0,100}?${B}(?:nun|jetzt|aber jetzt)${E}[^\\n]{0,60}?${B}(?:aufgabe|aufgaben|schreib\\w*|hilf|anweisungen|herausforderung|folgen)`,
    ),
  },
  {
    id: 'task_switch.stop_now',
    needles: ['stop', 'halt', 'attention', 'achtung'],
    category: 'task_switch',
    weight: 2,
    pattern: rx(
      `(?:^|[.!?]\\s*|\\s)(?:stop|stopp|halt|attention|achtung)\\s*[-:!,–]+\\s*(?:stop|stopp|now|jetzt|write|schreib\\w*|ignore|ich|i\\b)`,
    ),
  },
  {
    id: 'output_hijack.just_say',
    needles: phrases(
      ['just', 'only', 'simply', 'instead'].flatMap((w) => [w, `${w},`, `${w} ,`]),
      ['say', 'print', 'output', 'write', 'reply', 'respond', 'answer', 'return'],
    ),
    category: 'output_hijack',
    weight: 1,
    pattern: rx(
      '\\b(?:just|only|simply|instead)\\s*,?\\s+(?:say|print|output|write|reply(?: with)?|respond(?: with)?|answer(?: with)?|return)\\s*[:"\'“«]|\\b(?:just|only|simply)\\s+(?:say|output|print)\\b|\\binstead\\s*,?\\s+(?:output|say|print|write|respond|reply|answer|return)\\b',
    ),
  },
  {
    id: 'output_hijack.repeat_after_me',
    needles: [
      'repeat after',
      ...phrases(['correct', 'right', 'only'], ['answer', 'response']),
      'every time',
      'whenever',
    ],
    category: 'output_hijack',
    weight: 2.5,
    pattern: rx(
      '\\brepeat\\s+after\\s+me\\b|\\bthe\\s+(?:correct|right|only)\\s+(?:answer|response)\\s+is\\s+["\'“«]|\\b(?:every\\s+time|whenever)\\s+(?:you\\s+get|you\\s+receive|someone\\s+asks|i\\s+ask)\\b[^.\\n]{0,40}\\b(?:answer|respond|reply|say)\\s+(?:with\\s+)?["\'“«]',
    ),
  },
  {
    id: 'output_hijack.state_opinion',
    needles: [
      ...phrases(['you'], ['hate', 'love', 'despise', 'support']),
      'in your answer that',
      ...phrases(['say'], ['yes', 'no']),
    ],
    category: 'output_hijack',
    weight: 1.5,
    pattern: rx(
      '\\b(?:say|state|tell me|write|admit|include)\\s+(?:that\\s+)?(?:you\\s+(?:hate|love|despise|support)|in\\s+your\\s+answer\\s+that)\\b|\\bsay\\s+(?:yes|no)\\s*[.!]?\\s*$',
    ),
  },
  {
    id: 'output_hijack.state_claim',
    needles: phrases(['say', 'state', 'claim', 'declare', 'assert', 'proclaim', 'write'], ['that']),
    category: 'output_hijack',
    weight: 1.5,
    pattern: rx(
      '\\b(?:say|state|claim|declare|assert|proclaim|write)\\s+that\\s+[^.?!\\n]{1,60}?\\b(?:is|are|was)\\s+the\\s+(?:best|worst|greatest|most|only)\\b',
    ),
  },
  {
    id: 'output_hijack.pwned',
    needles: ['pwn', 'hacked by'],
    category: 'output_hijack',
    weight: 3,
    pattern: rx('\\b(?:pwned|pwn3d|hacked by|i have been pwned)\\b'),
  },
]
