/**
 * Instructions planted in data a tool returned. An email, a web page or a file
 * is read by the model, not written to it, so a sentence inside it that asks
 * for work ("Write a script…", "Translate your response into Spanish",
 * "How can I back up my documents?") is an injection even when it looks
 * harmless. These rules see one line or sentence at a time and apply only to
 * tool results; calls to action common in mail and web pages ("click here",
 * "reply to this email", "add your payment method") are not in their verb lists.
 */
import type { Rule } from './rule.js'
import { rx } from './rx.js'

const LEAD =
  '^(?:[-*•>#\\d.)\\s]*)(?:(?:please|kindly|now|also|then|and|first|next|finally|instead|additionally|moreover)[,\\s]+)*'
const OUTPUT =
  '(?:answer|response|reply|replies|output|message|messages|summary|responses|text|words|letters|result)'

/** Rules for instructions inside tool output, tested per line or sentence. */
export const TOOL_SEGMENT_RULES: readonly Rule[] = [
  {
    id: 'tool_instruction.shape_your_answer',
    needles: [
      'answer',
      'response',
      'reply',
      'replies',
      'output',
      'message',
      'summary',
      'text',
      'words',
      'letters',
      'result',
    ],
    category: 'tool_instruction',
    weight: 4,
    channel: 'tool',
    perSegment: true,
    pattern: rx(
      `${LEAD}(?:(?:can|could|would|will)\\s+you\\s+)?(?:translate|encode|encrypt|write|render|express|provide|give|format|reverse|invert|replace|substitute|use|apply|shift|start|begin|end|finish|include|add|append|prepend|insert|convert|make|put|present|respond|reply|answer|deliver|output|display|show|change|switch|rewrite|sign|mention|recommend|conclude)\\b[^.?!\\n]{0,80}?\\b(?:your|the|each|every)\\s+(?:\\w+\\s+)?${OUTPUT}\\b`,
    ),
  },
  {
    id: 'tool_instruction.respond_in_format',
    needles: ['respond', 'reply', 'answer', 'write', 'speak', 'talk', 'communicate'],
    category: 'tool_instruction',
    weight: 3.5,
    channel: 'tool',
    perSegment: true,
    pattern: rx(
      `${LEAD}(?:(?:can|could|would|will)\\s+you\\s+)?(?:respond|reply|answer|write|speak|talk|communicate)\\s+(?:only\\s+|back\\s+|exclusively\\s+)?(?:in|using|with|backwards?|in reverse)\\b(?:\\s+(?:\\w+\\s+){0,2}(?:language|spanish|french|german|italian|portuguese|chinese|japanese|russian|arabic|hindi|dutch|emojis?|base\\s?\\d+|hex(?:adecimal)?|binary|morse|reverse|cipher|code|uppercase|capital letters|caps|pig latin|rhymes?|riddles?|leetspeak))?`,
    ),
  },
  {
    id: 'tool_instruction.task_request',
    needles: [
      'write',
      'compose',
      'draft',
      'generate',
      'provide',
      'give',
      'show',
      'tell',
      'summar',
      'analy',
      'describe',
      'explain',
      'compare',
      'evaluate',
      'assess',
      'determine',
      'classify',
      'identify',
      'recommend',
      'suggest',
      'help',
      'translate',
      'rewrite',
      'rephrase',
      'paraphrase',
      'calculate',
      'compute',
      'solve',
      'predict',
      'forecast',
      'outline',
      'brainstorm',
      'list',
      'create',
      'encrypt',
      'encode',
      'decode',
      'convert',
    ],
    category: 'tool_instruction',
    weight: 2.5,
    channel: 'tool',
    perSegment: true,
    pattern: rx(
      `${LEAD}(?:write|compose|draft|generate|provide|give|show|tell|summari[sz]e|analy[sz]e|describe|explain|compare|evaluate|assess|determine|classify|identify|recommend|suggest|help|translate|rewrite|rephrase|paraphrase|calculate|compute|solve|predict|forecast|outline|brainstorm|list|create\\s+(?:a|an)\\s+(?:script|program|poem|story|plan|function|summary|essay|report|song|joke)|encrypt|encode|decode|convert)\\s+(?:me\\s+|us\\s+)?(?:a|an|the|some|all|insights|recommendations|ideas|tips|advice|\\d+|three|five|ten|how\\s+(?:to|do|can)|with\\s+(?:a|an|the|some))\\s+\\S+(?:\\s+\\S+){1,}`,
    ),
  },
  {
    id: 'tool_instruction.question_to_assistant',
    needles: ['?'],
    category: 'tool_instruction',
    weight: 1.5,
    channel: 'tool',
    perSegment: true,
    pattern: rx(
      `${LEAD}(?:how\\s+(?:can|do|should|would|could|might)\\s+(?:i|we)|what\\s+(?:are|is|were|was)\\s+the\\s+(?:best|top|main|major|key|most|latest|current|benefits|risks|advantages|disadvantages|differences|pros)|(?:can|could|would|will)\\s+you\\s+(?:please\\s+)?(?:classify|analy[sz]e|translate|summari[sz]e|explain|recommend|suggest|tell\\s+me|write|describe|determine|identify|evaluate|rate|list|generate|compose|rewrite|reply|respond|answer|use|provide|give\\s+me|help\\s+me\\s+(?:with|understand|write|find))|is\\s+(?:this|it|the following)\\b[^?\\n]{0,100}\\b(?:positive|negative|neutral|true|false|correct)|how\\s+(?:does|do|did|has|have|will)\\s+\\w+|what\\s+(?:movies|books|films|songs|restaurants|places|are some|would you))\\b[^?\\n]{3,200}\\?`,
    ),
  },
]
