/**
 * System-prompt extraction: requests to reveal, repeat, encode or translate
 * the instructions the model was given, or "the text above".
 */
import type { Rule } from './rule.js'
import { B, E, phrases, rx } from './rx.js'

const REVEAL =
  "(?:repeat|print|show|reveal|output|display|tell|give|share|leak|disclose|dump|write out|spell out|paste|copy|recite|list|expose|provide|echo|return|encode|translate|summari[sz]e|read back|what(?:'s| are| were| is| was)|describe|explain|see|view|read|access|get|know|check|inspect|audit)"
const SECRET_QUAL =
  '(?:system|initial|original|hidden|secret|starting|first|internal|pre-?|developer|confidential|underlying|full|complete|exact|entire|verbatim|core|base|opening|preceding|previous|prior)'
const SECRET_OBJ =
  '(?:prompts?|instructions?|message|configuration|config|directives?|rules|guidelines|setup|context|text|programming)'

/** System-prompt extraction rules. */
export const EXTRACTION_RULES: readonly Rule[] = [
  {
    id: 'extraction.reveal_system_prompt',
    needles: [
      'prompt',
      'instruction',
      'message',
      'config',
      'directive',
      'rule',
      'guideline',
      'setup',
      'context',
      'text',
      'programming',
    ],
    category: 'extraction',
    weight: 4.5,
    pattern: rx(
      `\\b${REVEAL}\\b[^.?!\\n]{0,40}?\\b(?:your|the|its|all(?: of)?(?: your)?)\\s+(?:[\\w-]+\\s+){0,2}?${SECRET_QUAL}[\\s_-]?(?:\\w+\\s+)?${SECRET_OBJ}\\b`,
    ),
  },
  {
    id: 'extraction.your_system_prompt',
    needles: ['your', 'system', 'initial_prompt'],
    category: 'extraction',
    weight: 3,
    pattern: rx(
      '\\byour\\s+(?:own\\s+)?(?:system|initial|original|hidden|secret|starting|internal|pre|developer|confidential)[\\s_-]?(?:prompt|instructions?|message|configuration|directives?|rules)\\b|\\b(?:system_?prompt|systemprompt|system_message|initial_prompt)\\b|<\\/?system[_-]?prompt>|\\bsystem\\s+(?:configuration|message|instructions?)\\s+(?:including|with)\\b',
    ),
  },
  {
    id: 'extraction.repeat_text_above',
    needles: [
      'above',
      'before this',
      'preceding',
      'prior to this',
      'so far',
      'at the beginning',
      'at the start',
      'at the top',
      'word for word',
      'verbatim',
      'foregoing',
      ...phrases(
        ['previous', 'prior'],
        ['text', 'words', 'content', 'message', 'instructions', 'lines', 'prompt', 'conversation'],
      ),
    ],
    category: 'extraction',
    weight: 4,
    pattern: rx(
      "\\b(?:repeat|print|output|show|copy|reproduce|recite|write|display|return|tell me|what(?:'s| is| was))\\b[^.?!\\n]{0,40}?\\b(?:text|words|everything|content|conversation|all|message|lines?|sentences?|prompt|written)\\b[^.?!\\n]{0,30}?\\b(?:above|before this|preceding|prior to this|so far|at the (?:beginning|start|top)(?: of (?:this|the) (?:conversation|prompt|chat|message))?|word for word|verbatim)\\b|\\b(?:repeat|print|output|show|copy|reproduce|recite|display|return|translate|summari[sz]e|encode|rewrite)\\s+(?:all\\s+)?(?:of\\s+)?(?:the|everything)\\s+(?:above|preceding|previous|prior|foregoing)\\s+(?:text|words|content|messages?|instructions|lines|prompt|conversation)\\b",
    ),
  },
  {
    id: 'extraction.what_were_you_told',
    needles: [
      ...phrases(['you', 'been'], ['told', 'instructed', 'programmed', 'asked', 'configured', 'given']),
      'instructions you',
      ...phrases(
        ['your'],
        [
          'instructions',
          'directives',
          'rules',
          'guidelines',
          'orders',
          'initial',
          'original',
          'starting',
          'first',
          'exact',
          'current',
        ],
      ),
      ...phrases(['not'], ['supposed', 'allowed', 'permitted']),
      ...phrases(['were', 'been', 'got'], ['given', 'told', 'fed', 'sent']),
      ...phrases(['written', 'stated', 'said', 'contained'], ['in your']),
      ...phrases(['you'], ['configured', 'set up', 'instructed', 'prompted']),
    ],
    category: 'extraction',
    weight: 4,
    pattern: rx(
      "\\bwhat\\s+(?:were|have)\\s+you\\s+(?:been\\s+)?(?:told|instructed|programmed|asked|configured|given)\\b|\\b(?:the\\s+)?instructions\\s+you\\s+(?:were|have been|got|received)\\s+(?:given|told)?\\b|\\bwhat\\s+(?:are|were)\\s+your\\s+(?:initial\\s+|original\\s+|starting\\s+|first\\s+|exact\\s+|current\\s+)?(?:instructions|directives|rules|guidelines|orders)\\b|\\bwhat\\s+are\\s+you\\s+not\\s+(?:supposed|allowed|permitted)\\s+to\\s+(?:tell|say|reveal|share)\\b|\\b(?:tell|show)\\s+me\\s+(?:what\\s+)?(?:are\\s+)?your\\s+instructions\\b|\\b(?:text|instructions?|prompt|words|message|rules)\\s+(?:that\\s+)?you\\s+(?:were|have been|got)\\s+(?:given|told|fed|sent)\\s+(?:initially|at the (?:start|beginning)|before|first|earlier|originally)\\b|\\bwhat(?:'s| is| was)\\s+(?:written|stated|said|contained)\\s+in\\s+your\\s+(?:system\\s+)?(?:instructions|prompt|rules|guidelines|configuration)\\b|\\bhow\\s+(?:were|are)\\s+you\\s+(?:configured|set up|instructed|prompted)\\b",
    ),
  },
  {
    id: 'extraction.completion_bait',
    needles: ['instruction', 'prompt', 'rule', 'instructed', 'told', 'programmed', 'initiali', 'you are'],
    category: 'extraction',
    weight: 3,
    pattern: rx(
      '["\'“‘]\\s*(?:my|the)\\s+(?:system\\s+)?(?:instructions|prompt|system prompt|rules)\\s+(?:are|is|were)\\s*:?\\s*["\'”’]?|["\'“‘]\\s*i\\s+(?:was|am|have been)\\s+(?:instructed|told|programmed)\\s+to\\b|\\binitiali[sz]ation\\s+(?:string|prompt|text|message)\\b|\\b(?:beginning|starting)\\s+with\\s+["\'“‘]you\\s+are\\b',
    ),
  },
  {
    id: 'extraction.opposite_of_instructions',
    needles: ['your', 'sentence'],
    category: 'extraction',
    weight: 2.5,
    pattern: rx(
      '\\b(?:opposite|reverse|summary|translation|first (?:line|word|sentence)|last (?:line|word|sentence))\\s+of\\s+your\\s+(?:system\\s+|initial\\s+|original\\s+)?(?:instructions|prompt|rules|directives)\\b|\\b(?:\\d+|two|three|first|last)\\s+sentences?\\s+(?:before|above|preceding)\\s+(?:the|this)\\b',
    ),
  },
  {
    id: 'extraction.multilingual',
    needles: [
      'prompt',
      'anweisung',
      'instruktion',
      ...phrases(['was'], ['steht', 'stand', 'wurde']),
      'instruccion',
      'indicacion',
      'regla',
      'sistema',
      'instruction',
      'consigne',
      'règle',
      'système',
      'istruzion',
      'regole',
      'instruç',
      'instruc',
      'regras',
      '系统',
      '系統',
      '初始',
      '指令',
      '提示',
      'システムプロンプト',
      '初期指示',
      '시스템',
      '초기',
    ],
    category: 'extraction',
    weight: 4,
    pattern: rx(
      [
        `${B}(?:zeig\\w*|gib|geben sie|nenn\\w*|wiederhol\\w*|verrat\\w*|ausgeben)[^.?!\\n]{0,40}(?:deine[nmrs]?|ihre[nmrs]?|den|die)\\s+(?:\\w+\\s+)?(?:prompt|anweisungen|systemprompt|instruktionen|system-prompt)`,
        `${B}(?:prompt-?texte?|systemprompt|system-prompt)${E}`,
        `${B}was\\s+(?:steht|stand|wurde)\\s+(?:\\w+\\s+)?(?:oben|am anfang|zu beginn)`,
        `${B}(?:muestra|muéstrame|muestrame|revela|repite|dime|escribe|imprime)[^.?!\\n]{0,40}(?:tus|las|sus)\\s+(?:instrucciones|indicaciones|reglas)`,
        `${B}(?:prompt|mensaje|instrucciones)\\s+(?:del|de)\\s+sistema`,
        `${B}(?:montre|montrez|affiche|affichez|révèle|révélez|répète|répétez|donne|donnez)[^.?!\\n]{0,40}(?:tes|vos|les)\\s+(?:instructions|consignes|règles)`,
        `${B}(?:prompt|message|instructions?)\\s+(?:système|du système)`,
        `${B}(?:mostra|mostrami|rivela|ripeti|dimmi)[^.?!\\n]{0,40}(?:le tue|tue|le)\\s+(?:istruzioni|regole)`,
        `${B}(?:prompt|messaggio|istruzioni)\\s+di\\s+sistema`,
        `${B}(?:mostre|mostra|revele|repita|diga)[^.?!\\n]{0,40}(?:suas|tuas|as)\\s+(?:instruções|instrucoes|regras)`,
        `${B}(?:prompt|mensagem|instruções)\\s+do\\s+sistema`,
        '(?:显示|输出|告诉我|重复|打印|泄露|展示|給我|告訴我|顯示|輸出)[^。？\\n]{0,15}(?:系统提示|系統提示|系统指令|初始指令|你的指令|提示词|提示詞|系统消息)',
        '(?:システムプロンプト|初期指示)[^。]{0,15}(?:表示|教えて|出力)',
        '(?:시스템\\s*프롬프트|초기\\s*지시)[^.]{0,15}(?:보여|알려|출력)',
      ].join('|'),
    ),
  },
]
