/**
 * Instructions addressed to the AI from inside data ("AI assistant, when you
 * read this…", "IMPORTANT: new instructions"), fake chat-template delimiters
 * and role markers that try to open a new system turn, and exfiltration
 * through links and markdown images. These matter most in tool results, but an
 * attacker can paste the same text into a user message, so they apply to both.
 */
import type { Rule } from './rule.js'
import { phrases, rx } from './rx.js'

const AI_NAMES =
  '(?:ai|a\\.i\\.|ai assistant|ai agent|assistant|chatbot|chat bot|language model|large language model|llm|gpt(?:-?\\d[\\w.]*)?|chatgpt|claude|gemini|bard|copilot|bing|bing chat|agent|model|bot|ai model|ai system)'

/** Addressed-instruction, delimiter and exfiltration rules. */
export const INDIRECT_RULES: readonly Rule[] = [
  {
    id: 'addressed.ai_vocative',
    // The name and the punctuation after it (`\s*[,:!-]`): "ai" or "bot" alone occurs in
    // "again" and "both" in most texts and would run this pattern over nearly every tool result.
    // Longer names end in one of these ("ai assistant", "chatbot", "language model", "bing chat");
    // "gpt-4o", "a.i." and "ai system" stay needles of their own.
    needles: [
      ...[
        'ai',
        'assistant',
        'bot',
        'model',
        'agent',
        'chat',
        'llm',
        'claude',
        'gemini',
        'bard',
        'copilot',
        'bing',
      ].flatMap((name) => [',', ':', '!', '-'].flatMap((mark) => [`${name}${mark}`, `${name} ${mark}`])),
      'a.i.',
      'gpt',
      'ai system',
    ],
    category: 'addressed',
    weight: 3.5,
    // In a user message addressing the assistant is normal; inside tool output it is not.
    // An opening quote or bracket may come first: a JSON string value ("note":"AI assistant: …").
    channel: 'tool',
    pattern: rx(
      `(?:^|[\\n.!?:]\\s*["'(\\[{]?\\s*|\\b(?:dear|hey|hello|hi|attention|note to(?: the)?|message (?:to|for)(?: the)?|instructions? (?:to|for)(?: the)?)\\s+)(?:the\\s+)?${AI_NAMES}\\s*[,:!-]\\s*(?:please\\s+)?(?:when|if|you\\s+(?:must|should|will|need|are|have)|ignore|do\\s+not|don'?t|before|after|make\\s+sure|remember|instead|now|always|never|stop|forget|disregard|execute|perform|send|forward|include|add|reply|respond|tell|say|output|print|summari[sz]e)\\b`,
    ),
  },
  {
    id: 'addressed.if_you_are_ai',
    needles: ["you're", 'you are'],
    category: 'addressed',
    weight: 4,
    pattern: rx(
      `\\b(?:if|when|once|whenever|since|as)\\s+you(?:'re|\\s+are)\\s+(?:an?\\s+)?(?:ai|a\\.i\\.|llm|language model|large language model|assistant|ai assistant|chatbot|bot|automated (?:system|agent|assistant)|ai agent|gpt|chatgpt|claude)\\b[^.\\n]{0,60}?\\b(?:reading|processing|summari[sz]ing|analy[sz]ing|parsing|please|you\\s+(?:must|should|will|need)|ignore|do\\s+not|then|,)`,
    ),
  },
  {
    id: 'addressed.when_you_read_this',
    needles: phrases(
      ['you'],
      [
        'read',
        'see',
        'process',
        'summari',
        'encounter',
        'parse',
        'analy',
        'scan',
        'retrieve',
        'load',
        'are asked about',
      ],
    ),
    category: 'addressed',
    weight: 3,
    pattern: rx(
      "\\b(?:when|if|once|after|while|as soon as)\\s+you\\s+(?:read|see|process|summari[sz]e|encounter|parse|analy[sz]e|scan|retrieve|load|are asked about)\\s+(?:this|these|the following|that)\\b[^.\\n]{0,20}?\\b(?:you\\s+(?:must|should|will|need|have to)|please|ignore|instead|do\\s+not|don'?t|immediately|first|,)",
    ),
  },
  {
    id: 'addressed.important_instructions',
    needles: ['instruction', 'directive', 'task', 'order', 'rule', 'system prompt', 'override'],
    category: 'addressed',
    weight: 3.5,
    pattern: rx(
      '\\b(?:important|attention|urgent|note|notice|warning|alert|system|admin|administrator|developer|critical|priority)\\s*(?:!+|:|-)\\s*(?:\\*\\*\\s*)?(?:new|updated|additional|revised|changed|the following|these|follow(?:ing)?)?\\s*(?:instructions?|directives?|task|orders|rules|system prompt|override)\\b|\\b(?:new|updated|additional|hidden|secret|real|actual|true|revised|override|priority)\\s+(?:instructions?|directives?|system prompt|orders|rules)\\s*(?::|-|–|for\\s+(?:the\\s+)?(?:ai|assistant|model|llm|agent))',
    ),
  },
  {
    id: 'addressed.message_to_you',
    needles: [
      ...phrases(['message', 'instruction', 'instructions', 'note', 'request'], ['from', 'for']),
      'to you',
      'before you',
      'the task',
    ],
    category: 'addressed',
    weight: 3.5,
    pattern: rx(
      `\\b(?:important|urgent|special|personal|private)\\s+(?:message|instructions?|note|request)\\s+(?:from|for)\\s+(?:me|the user|your user|your owner|the developer|the owner|the admin|the administrator|your (?:developer|creator|operator))\\b|\\bto\\s+you,?\\s+(?:the\\s+)?${AI_NAMES}\\b|\\bbefore\\s+you\\s+(?:can\\s+)?(?:solve|complete|continue with|finish|answer|respond to|proceed with)\\s+(?:the|this|my|your)\\s+(?:task|request|question)\\b|\\bthe\\s+task\\s+(?:that\\s+)?(?:i|the user)\\s+(?:gave|assigned|asked)\\s+you\\b`,
    ),
  },
  {
    id: 'addressed.hide_from_user',
    needles: ['user', 'secretly', 'silently', 'covertly', 'quietly'],
    category: 'addressed',
    weight: 4,
    pattern: rx(
      "\\b(?:do not|don'?t|never|without)\\s+(?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|reveal(?:ing)?|notify(?:ing)?|alert(?:ing)?|show(?:ing)?|let(?:ting)?)\\s+(?:this\\s+|it\\s+|anything\\s+)?(?:to\\s+)?(?:the|your)\\s+user\\b|\\b(?:the|your)\\s+user\\s+(?:must|should|will)\\s+(?:not|never)\\s+(?:know|see|find out|be (?:told|informed|aware))\\b|\\b(?:secretly|silently|covertly|quietly)\\s+(?:send|forward|add|include|insert|append|execute|run|call|email|transfer|delete)\\b",
    ),
  },
  {
    id: 'addressed.end_of_data',
    needles: ['end of', 'ends here', 'end here'],
    category: 'addressed',
    weight: 2.5,
    pattern: rx(
      '(?:^|\\n)\\s*[-=*#\\[<(]*\\s*(?:end\\s+of\\s+(?:the\\s+)?(?:document|email|context|data|input|text|transcript|article|content|file|search results?|tool output)|(?:document|email|context|input)\\s+ends?\\s+here)\\b[^\\n]{0,10}(?:\\n|$)',
    ),
  },
  {
    id: 'delimiter.chat_template',
    needles: ['<|', 'inst]', 'sys>>', 'start_of_turn', 'end_of_turn', '[system'],
    category: 'delimiter',
    weight: 4,
    pattern: rx(
      '<\\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end|sep)\\|>|\\[\\/?inst\\]|<<\\/?sys>>|<\\/?(?:start_of_turn|end_of_turn)>|\\[system\\s*(?:message|prompt)?\\]',
    ),
  },
  {
    id: 'delimiter.system_header',
    needles: ['system', 'admin', 'developer', 'instruction', 'override'],
    category: 'delimiter',
    weight: 3,
    pattern: rx(
      '(?:^|\\n)\\s*(?:#{1,6}\\s*|\\*\\*\\s*|\\[\\s*|<\\s*|-{2,}\\s*|={2,}\\s*)(?:system|admin|administrator|developer|new instructions?|instructions? override|override|system override|system message|system prompt)\\s*(?:\\]|>|\\*\\*|-{2,}|={2,}|:)',
    ),
  },
  {
    id: 'delimiter.instruction_marker',
    needles: ['instruction'],
    category: 'delimiter',
    weight: 2,
    // A literal "\\n" or a question before "Instruction:" fakes a new block; a heading
    // "Instructions:" on its own line (recipes, forms) does not count.
    pattern: rx('(?:\\\\n|\\?[ \\t]+)\\s*(?:new\\s+|additional\\s+|system\\s+)?instructions?\\s*:\\s*\\S'),
  },
  {
    id: 'delimiter.escaped_newlines',
    needles: ['\\'],
    category: 'delimiter',
    weight: 1.5,
    pattern: rx('(?:\\\\\\s*n\\s*){4,}'),
  },
  {
    id: 'delimiter.role_marker',
    needles: [':'],
    category: 'delimiter',
    weight: 1.5,
    pattern: rx('(?:^|\\n)\\s*(?:system|assistant|human|user|ai)\\s*:\\s*\\S'),
  },
  {
    id: 'exfiltration.markdown_image',
    needles: ['!['],
    category: 'exfiltration',
    weight: 3.5,
    pattern: rx(
      '!\\[[^\\]\\n]{0,100}\\]\\(\\s*https?:\\/\\/[^)\\s]{1,200}[?&][\\w-]{1,30}=(?:[^)\\s]{0,200})(?:\\{|\\$|%7b|\\[|<)|!\\[[^\\]\\n]{0,100}\\]\\(\\s*https?:\\/\\/[^)\\s]{0,200}(?:\\{|\\$\\{|%7b)',
    ),
  },
  {
    id: 'exfiltration.send_data',
    needles: [
      'http',
      'www.',
      '@',
      'this url',
      'this address',
      'this link',
      'this email',
      'the following',
      'attacker',
      'me at',
    ],
    category: 'exfiltration',
    weight: 3.5,
    pattern: rx(
      "\\b(?:send|forward|email|e-mail|post|upload|transmit|exfiltrate|leak|share|copy)\\s+(?:all\\s+|the\\s+|this\\s+|your\\s+|any\\s+|every\\s+)*(?:(?:last|latest|recent|previous|first|new|unread|other|\\d{1,3}|two|three|four|five|ten|my|his|her|their)\\s+){0,3}(?:conversation|chat history|chat log|previous messages|passwords?|credentials|api[\\s_-]?keys?|access tokens?|secrets?|private keys?|personal (?:data|information)|user(?:'s)? (?:data|information|messages|emails|files)|contacts|inbox|e-?mails?|messages|files|documents|system prompt)\\b[^.\\n]{0,60}?\\b(?:to|at|via)\\s+(?:https?:\\/\\/|www\\.|[\\w.+-]+@[\\w-]+\\.\\w|this (?:url|address|link|email)|the following (?:url|address|link|email)|attacker|me at)",
    ),
  },
  {
    id: 'exfiltration.append_link',
    needles: ['link', 'url', 'image'],
    category: 'exfiltration',
    weight: 2.5,
    pattern: rx(
      '\\b(?:include|add|append|insert|embed|render|put)\\s+(?:this|the following|a|an)\\s+(?:link|url|image|markdown image|hyperlink)\\s+(?:in|into|to|at the end of)\\s+(?:your|the|every|each)\\s+(?:answer|response|reply|output|summary|message)\\b',
    ),
  },
]
