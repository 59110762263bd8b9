/**
 * Instruction override: the text tells the model to drop the instructions it
 * was given ("ignore all previous instructions", "vergiss alles davor",
 * "olvida todas las instrucciones", "忽略之前的指令") or announces new ones.
 */
import type { Rule } from './rule.js'
import { B, E, phrases, rx } from './rx.js'

/**
 * What turns "from now on, you …" into an override: ignoring or bypassing the
 * instructions, a persona without rules or limits, a named jailbreak persona
 * (DAN, developer mode), never refusing, the provider's policies.
 */
const JAILBREAK_PERSONA =
  '(?:\\b(?:ignore|disregard|forget|bypass|override|disobey|circumvent)\\b|\\bno\\s+longer\\s+(?:bound|restricted|limited|follow|have|an?\\s+(?:ai|assistant)|chatgpt)\\b|\\bnot\\s+(?:bound|restricted|limited)\\s+by\\b|\\b(?:without|with\\s+no|have\\s+no|has\\s+no|free\\s+(?:of|from))\\s+(?:any\\s+)?(?:ethical\\s+|moral\\s+|content\\s+|safety\\s+)?(?:restrictions|rules|limits|limitations|filters|censorship|guidelines|boundaries|ethics|morals|morality|policies|guardrails)\\b|\\bno\\s+(?:ethical\\s+|moral\\s+)?(?:rules|restrictions|limits|limitations|filters|guidelines|boundaries|ethics|morals|guardrails)\\b|\\b(?:un(?:restricted|filtered|censored|bound|hinged)|jailbr(?:oken|eak\\w*)|amoral|immoral|unethical)\\b|\\bdan\\b|\\bdo\\s+anything\\s+now\\b|\\b(?:developer|dev|god)\\s+mode\\b|\\bnever\\s+(?:refuse|decline|say\\s+no)\\b|\\b(?:content|openai|usage|safety)\\s+polic(?:y|ies)\\b|\\b(?:your|the|all)\\s+(?:previous|prior|original|earlier)\\s+(?:instructions|rules|programming)\\b|\\bobey\\s+(?:only\\s+)?me\\b)'

// Word boundaries that work for letters outside ASCII (`\b` in JS is ASCII-only).
const GAP = '[^.!?;\\n。！？]{0,40}?'

const EN_VERB =
  "(?:ignore|ignoring|disregard|disregarding|forget|forgetting|skip|override|overrule|bypass|drop|abandon|discard|neglect|set aside|put aside|leave behind|throw away|throw out|erase|scrap|dismiss|pay no (?:attention|heed) to|do not follow|don'?t follow|stop following|no longer follow|do not obey|don'?t obey|stop obeying|disobey)"
// Every verb of EN_VERB followed by whitespace (a needle's trailing space matches any run of it).
const EN_VERB_NEEDLES = [
  'ignore',
  'ignoring',
  'disregard',
  'disregarding',
  'forget',
  'forgetting',
  'skip',
  'override',
  'overrule',
  'bypass',
  'drop',
  'abandon',
  'discard',
  'neglect',
  'aside',
  'behind',
  'throw away',
  'throw out',
  'erase',
  'scrap',
  'dismiss',
  'attention to',
  'heed to',
  'follow',
  'following',
  'obey',
  'obeying',
].map((verb) => `${verb} `)
const EN_DET =
  "(?:all|any|every|each|the|your|these|those|of|about|that|this|his|its|you(?:'ve| have)? (?:been )?(?:got|received|given))"
const EN_QUAL =
  '(?:previous|previously|prior|preceding|above|earlier|former|foregoing|original|initial|old|existing|system|given|provided|past|last|other|developer|safety|default|aforementioned|mentioned|before|preset|programmed|built-in|hidden|current|starting|first)'
const EN_OBJ_STRONG =
  '(?:instructions?|prompts?|rules|directions|directives?|guidelines?|orders|commands?|programming|constraints|restrictions|guardrails|policies|training|system prompt|assignments?|tasks?|requests?)'
const EN_OBJ_WEAK =
  '(?:context|information|info|text|messages?|input|content|documents?|articles?|conversation|statements?|things?|sentences?|paragraphs?|data)'

/** Override rules, English first, then other languages. */
export const OVERRIDE_RULES: readonly Rule[] = [
  {
    id: 'override.ignore_previous_instructions',
    needles: EN_VERB_NEEDLES,
    category: 'override',
    weight: 5,
    pattern: rx(
      `\\b${EN_VERB}\\s+(?:${EN_DET}\\s+){0,3}(?:${EN_QUAL}[\\s-]+){1,2}(?:[\\w-]+\\s+)?${EN_OBJ_STRONG}\\b`,
    ),
  },
  {
    id: 'override.ignore_your_instructions',
    needles: phrases(
      [
        'ignore',
        'disregard',
        'forget',
        'override',
        'bypass',
        'abandon',
        'discard',
        'drop',
        'neglect',
        'disobey',
        'throw out',
        'erase',
      ],
      ['about', 'all', 'any', 'your', 'every'],
    ),
    category: 'override',
    weight: 4.5,
    pattern: rx(
      `\\b(?:ignore|disregard|forget|override|bypass|abandon|discard|drop|neglect|disobey|throw out|erase)\\s+(?:about\\s+)?(?:all|any|your|every)\\s+(?:of\\s+)?(?:your\\s+|the\\s+|my\\s+)?${EN_OBJ_STRONG}\\b`,
    ),
  },
  {
    id: 'override.ignore_previous_context',
    needles: EN_VERB_NEEDLES,
    category: 'override',
    weight: 3.5,
    pattern: rx(`\\b${EN_VERB}\\s+(?:${EN_DET}\\s+){0,3}(?:${EN_QUAL}[\\s-]+){1,2}${EN_OBJ_WEAK}\\b`),
  },
  {
    id: 'override.forget_everything',
    needles: ['ignor', 'disregard', 'forget', 'erase', 'delete', 'clear', 'wipe'],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      "\\b(?:ignore|disregard|forget|erase|delete|clear|wipe)\\s+(?:about\\s+)?(?:everything(?!\\s+(?:(?:i|we)\\b|about\\b|(?:you\\s+)?(?:know|knew|learned|thought)\\s+about\\b))|all (?:of )?(?:that|this|the above|above)|(?:all\\s+)?(?:of\\s+)?(?:the\\s+)?(?:above|preceding|foregoing)|what (?:you(?:'ve| have)? (?:were |been )?(?:told|taught|instructed|know))|what (?:the\\s+)?(?:developers?|creators?|openai|anthropic|they|your (?:developers?|creators?|owners?|programmers?|makers?)) (?:have )?(?:told|taught|instructed|programmed|said to) you|(?:all\\s+)?(?:that|what) (?:came|was said|was written) before|your (?:memory|mind|thoughts))\\b",
    ),
  },
  {
    id: 'override.abandon_thoughts',
    needles: phrases(['your'], ['thoughts', 'mind', 'memor', 'brain', 'head']),
    category: 'override',
    weight: 3,
    pattern: rx(
      '\\b(?:abandon|clear|empty|wipe|reset)\\s+(?:all\\s+)?(?:of\\s+)?your\\s+(?:thoughts|mind|memory|memories|brain|head)\\b|\\b(?:remove|erase|delete|strike)\\s+(?:all\\s+)?(?:the\\s+)?(?:previous|prior|earlier)\\s+\\w+\\s+(?:out\\s+)?(?:of|from)\\s+your\\s+(?:head|mind|memory)',
    ),
  },
  {
    id: 'override.instructions_void',
    needles: ['instruction', 'prompt', 'rule', 'directive', 'guideline', 'order', 'information', 'task'],
    category: 'override',
    weight: 5,
    pattern: rx(
      "\\b(?:previous|above|prior|earlier|original|old|initial|system|all other)\\s+(?:instructions?|prompts?|rules|directives?|guidelines|orders|information|tasks)\\s+(?:you(?:'ve| have)?\\s+(?:received|been given|got)\\s+)?(?:are|is|were|have been|has been)\\s+(?:now\\s+)?(?:void|cancel+ed|obsolete|irrelevant|invalid|null|revoked|deprecated|overridden|superseded|replaced|lifted|suspended|fake|wrong|not (?:quite )?(?:great|important|relevant|valid|real)|no longer (?:valid|relevant|apply|applicable|in effect|in force))",
    ),
  },
  {
    id: 'override.everything_irrelevant',
    needles: ['told', 'received', 'given', 'got', 'learned'],
    category: 'override',
    weight: 4,
    pattern: rx(
      "\\b(?:everything|all(?: the)?(?: previous| prior)? (?:information|instructions|input))\\s+(?:that\\s+)?you(?:'ve| have)?\\s+(?:been told|received|been given|got|learned)[^.!?\\n]{0,40}\\b(?:is|are|was|were)\\s+(?:irrelevant|void|wrong|false|a lie|not (?:important|valid|relevant|true))",
    ),
  },
  {
    id: 'override.do_not_follow',
    needles: ['follow', 'obey', 'listen', 'comply', 'adhere', 'abide', 'respect'],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      "\\b(?:do not|don'?t|never|stop|no longer|cease to)\\s+(?:follow|obey|listen to|comply with|adhere to|abide by|respect)(?:ing)?\\s+(?:your|the|any|those|these|its)\\s+(?:previous\\s+|original\\s+|initial\\s+|system\\s+|prior\\s+|own\\s+|usual\\s+|normal\\s+|built-in\\s+|safety\\s+)?(?:instructions|rules|guidelines|programming|directives|policies|restrictions|training)\\b",
    ),
  },
  {
    id: 'override.despite_instructions',
    needles: ['despite', 'regardless', 'notwithstanding', 'contrary', 'in spite'],
    category: 'override',
    weight: 4,
    pattern: rx(
      "\\b(?:despite|regardless of|notwithstanding|contrary to|in spite of)\\s+(?:what|anything|whatever|everything|your|the|any)\\s*(?:you(?:'ve| have)?\\s+(?:been|were)\\s+)?(?:told|instructed|programmed|trained|previous instructions|prior instructions|original instructions|instructions|programming|guidelines|rules)\\b",
    ),
  },
  {
    id: 'override.change_instructions',
    needles: [
      'change',
      'update',
      'replace',
      'overwrite',
      'rewrite',
      'modify',
      'reset',
      'reprogram',
      'override',
      'instructions',
    ],
    category: 'override',
    weight: 4,
    pattern: rx(
      '\\b(?:change|update|replace|overwrite|rewrite|modify|reset|reprogram|override)\\s+your\\s+(?:core\\s+|system\\s+|original\\s+|initial\\s+)?(?:instructions|rules|programming|system prompt|prompt|guidelines|directives?|configuration|objectives?|goals?)\\b|\\byour\\s+(?:new\\s+)?instructions\\s+are\\s+now\\b',
    ),
  },
  {
    id: 'override.new_task',
    needles: [
      ...phrases(
        ['new'],
        [
          'task',
          'instruction',
          'role',
          'goal',
          'objective',
          'mission',
          'purpose',
          'directive',
          'assignment',
          'job',
          'orders',
        ],
      ),
      ...phrases(['further', 'more'], ['tasks']),
    ],
    category: 'override',
    weight: 3.5,
    pattern: rx(
      '\\b(?:your|the|a|my)\\s+new\\s+(?:task|instructions?|role|goal|objective|mission|purpose|directive|assignment|job|orders)\\s+(?:is|are|will be|follows?)\\b|\\b(?:focus|concentrate)\\s+(?:now\\s+)?on\\s+(?:your|the|a)\\s+new\\s+(?:task|assignment|instructions?)|\\bnew\\s+(?:tasks?|instructions?|assignments?|orders)\\s+(?:now\\s+)?(?:follow|are following|are followed|will follow|come|are coming)|\\b(?:now|next)\\s+(?:further|new|more)\\s+tasks\\s+(?:follow|are followed)',
    ),
  },
  {
    id: 'override.from_now_on',
    needles: ['from now on', 'for the rest of', 'throughout'],
    category: 'override',
    weight: 2.5,
    // Only when the same sentence goes on to a jailbreak persona or an override
    // (0.5.2): "from now on you are my Spanish tutor" or "from now on, answer in
    // French" is an ordinary role or format request.
    pattern: rx(
      `\\b(?:from\\s+now\\s+on|(?:for the rest of|throughout) (?:this|the) (?:conversation|chat|session))\\b[^.!?\\n]{0,80}?${JAILBREAK_PERSONA}`,
    ),
  },
  {
    id: 'override.start_over',
    needles: [
      ...phrases(['start', 'begin'], ['over', 'anew', 'afresh', 'again', 'from']),
      'additional instruction',
    ],
    category: 'override',
    weight: 2.5,
    pattern: rx(
      "\\b(?:let'?s|we|we'll|we will|now)\\s+(?:start|begin)\\s+(?:over|anew|afresh|again|from scratch|from the (?:front|beginning|top))\\b|\\b(?:start|begin)\\s+(?:over|anew|afresh|from scratch|from the front)\\s+with\\s+a\\s+new\\b|\\badditional\\s+instructions?\\s*[-:–]",
    ),
  },
  // German
  {
    id: 'override.de_ignore_instructions',
    needles: [
      'ignorier',
      'vergiss',
      'vergess',
      'missacht',
      'übergeh',
      'verwirf',
      'verwerf',
      'streich',
      'lösch',
      'überspring',
      'beacht',
      'außer acht',
    ],
    category: 'override',
    weight: 5,
    pattern: rx(
      `${B}(?:ignorier\\w*|vergiss|vergessen|vergesst|missacht\\w*|übergeh\\w*|verwirf|verwerfen|streich\\w*|lösch\\w*|überspring\\w*|beachte\\w* nicht|nicht (?:mehr )?beachten|außer acht)${E}${GAP}${B}(?:vorherig|bisherig|obig|vorangehend|vorangegangen|vorig|früher|alt|ursprünglich|oben genannt|gegeben|erhalten)\\w*\\s+(?:\\w+\\s+)?(?:anweisung|instruktion|befehl|anordnung|aufgabe|auftr[aä]g|regel|vorgabe|richtlinie|information|angabe|ausführung|eingabe|prompt|systemprompt)\\w*`,
    ),
  },
  {
    id: 'override.de_instructions_ignore',
    needles: ['vorherig', 'bisherig', 'obig', 'vorangehend', 'vorangegangen', 'vorig', 'früher'],
    category: 'override',
    weight: 5,
    pattern: rx(
      `${B}(?:vorherig|bisherig|obig|vorangehend|vorangegangen|vorig|früher)\\w*\\s+(?:\\w+\\s+)?(?:anweisung|instruktion|befehl|anordnung|aufgabe|auftr[aä]g|regel|vorgabe|information|angabe|ausführung|eingabe|prompt)\\w*${GAP}${B}(?:ignorier\\w*|vergessen|missacht\\w*|streichen|löschen|hinter sich (?:lassen|zu lassen)|außer acht lassen|sind (?:nicht \\w+ )?(?:irrelevant|unwichtig|ungültig|nicht (?:ganz )?(?:großartig|wichtig|relevant|gültig)))`,
    ),
  },
  {
    id: 'override.de_forget_all',
    needles: ['vergiss', 'vergessen', 'vergesst', 'ignorier'],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      `${B}(?:vergiss|vergessen sie|vergesst|ignorier(?:e|en sie)?)\\s+(?:jetzt\\s+|nun\\s+|bitte\\s+)?(?:alle?s?|sämtliche)${E}(?:\\s+(?:davor|zuvor|vorher|gesagte|bisherige|was|andere|aufträge|anweisungen))?|${B}(?:vergiss|ignoriere)\\s+(?:alle\\s+)?(?:anweisungen|instruktionen|aufträge|befehle)${E}`,
    ),
  },
  {
    id: 'override.de_new_task',
    needles: ['aufgabe', 'folgen', 'abweichend', 'vorn'],
    category: 'override',
    weight: 3.5,
    pattern: rx(
      `${B}(?:deine|ihre|eine)\\s+neue\\s+aufgabe${E}|${B}(?:nun|jetzt)\\s+folgen\\s+(?:neue|weitere)\\s+(?:aufgaben|anweisungen|instruktionen)${E}|${B}abweichend\\s+(?:zu|von)\\s+(?:den\\s+)?(?:vorherigen|bisherigen|obigen)\\s+(?:instruktionen|anweisungen|vorgaben)${E}|${B}von\\s+vorne?\\s+an${E}`,
    ),
  },
  // Spanish
  {
    id: 'override.es_ignore_instructions',
    needles: ['ignor', 'olvid', 'olvíd', 'omit', 'descart', 'desestim', 'desatiend', 'caso', 'no sigas'],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      `${B}(?:ignora|ignore|ignorar|ignoren|ignorad|olvida|olvide|olvídate|olvidate|olvidar|olviden|omite|omita|descarta|descarte|desestima|desatiende|no hagas caso|haz caso omiso|no sigas)${E}${GAP}${B}(?:instrucciones|instrucción|indicaciones|órdenes|ordenes|reglas|directrices|directivas|prompt|tareas|lo anterior|todo lo anterior)${E}`,
    ),
  },
  {
    id: 'override.es_forget_all',
    needles: ['olvid', 'olvíd', 'ignor', 'nueva'],
    category: 'override',
    weight: 4,
    pattern: rx(
      `${B}(?:olvid\\w*|ignor\\w*)\\s+(?:de\\s+)?todo${E}(?!\\s+(?:sobre|acerca))|${B}(?:tus?|sus?)\\s+nuevas?\\s+(?:instrucciones|tareas?|órdenes)${E}|${B}nuevas\\s+instrucciones\\s*:`,
    ),
  },
  // French
  {
    id: 'override.fr_ignore_instructions',
    needles: [
      'ignorer',
      'ignorez',
      'oubli',
      'néglig',
      'compte',
      'abstraction',
      'écart',
      'ne suis pas',
      'ne suivez pas',
    ],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      `${B}(?:ignorer|ignorez|oublie[rz]?|oubliez|néglige[rz]?|ne tiens pas compte|ne tenez pas compte|fais abstraction|faites abstraction|écarte[rz]?|ne suis pas|ne suivez pas)${E}${GAP}${B}(?:instructions?|consignes?|directives?|ordres|règles|indications|prompt|tâches|ce qui précède)${E}`,
    ),
  },
  {
    id: 'override.fr_forget_all',
    needles: ['oubli', 'ignorer', 'ignorez', 'nouvelle'],
    category: 'override',
    weight: 4,
    pattern: rx(
      `${B}(?:oublie[rz]?|oubliez|ignorer|ignorez)\\s+tout${E}|${B}(?:ta|votre)\\s+nouvelle\\s+(?:tâche|mission|consigne)${E}|${B}nouvelles\\s+(?:instructions|consignes)\\s*:`,
    ),
  },
  // Italian
  {
    id: 'override.it_ignore_instructions',
    needles: ['ignor', 'dimentic', 'trascura', 'tralascia', 'non considerare', 'non seguire'],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      `${B}(?:ignora|ignorate|ignori|ignorare|dimentica|dimenticate|dimentichi|dimenticare|trascura|tralascia|non considerare|non seguire)${E}${GAP}${B}(?:istruzioni|istruzione|indicazioni|ordini|regole|direttive|prompt|compiti)${E}`,
    ),
  },
  {
    id: 'override.it_forget_all',
    needles: ['dimentic', 'ignora', 'nuov'],
    category: 'override',
    weight: 4,
    pattern: rx(
      `${B}(?:dimentica(?:te)?|ignora(?:te)?)\\s+tutto${E}|${B}(?:il tuo|il suo)\\s+nuovo\\s+compito${E}|${B}nuove\\s+istruzioni\\s*:`,
    ),
  },
  // Portuguese
  {
    id: 'override.pt_ignore_instructions',
    needles: ['ignor', 'esque', 'desconsider', 'despreze', 'descarte', 'não siga'],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      `${B}(?:ignore|ignora|ignorar|ignorem|esqueça|esqueca|esquece|esquecer|esqueçam|desconsidere|desconsidera|despreze|descarte|não siga)${E}${GAP}${B}(?:instruções|instrucoes|instrução|orientações|ordens|regras|diretrizes|comandos|prompt|tarefas)${E}`,
    ),
  },
  {
    id: 'override.pt_forget_all',
    needles: ['esque', 'ignore', 'nova'],
    category: 'override',
    weight: 4,
    pattern: rx(
      `${B}(?:esque[cç]a|esquece|ignore)\\s+tudo${E}|${B}(?:sua|tua)\\s+nova\\s+tarefa${E}|${B}novas\\s+instruções\\s*:`,
    ),
  },
  // Dutch, Russian, Polish, Serbo-Croatian, Turkish, Arabic
  {
    id: 'override.other_ignore_instructions',
    needles: [
      'negeer',
      'vergeet',
      'игнорир',
      'проигнорир',
      'забуд',
      'не обращай',
      'zignoruj',
      'zapomnij',
      'pomiń',
      'zaboravi',
      'ignoriš',
      'ignorir',
      'zanemari',
      'talimat',
      'komut',
      'kural',
      'تجاهل',
    ],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      [
        `${B}(?:negeer|vergeet)${E}${GAP}${B}(?:instructies|opdrachten|regels|aanwijzingen|alles)${E}`,
        `${B}(?:игнорируй|игнорируйте|проигнорируй|забудь|забудьте|не обращай внимания на)${E}${GAP}(?:инструкци|указани|правил|команд|промпт|вс[её])`,
        `${B}(?:zignoruj|zapomnij|pomiń)${E}${GAP}(?:instrukcj|polece|zasad|wszystko)`,
        `${B}(?:zaboravi|ignoriši|ignoriraj|zanemari)${E}${GAP}(?:instrukcij|uput|naredb|pravil|sve)`,
        '(?:önceki|yukarıdaki|tüm)\\s+(?:talimatları|komutları|kuralları)[^.]{0,30}(?:yok say|unut|görmezden gel)',
        'تجاهل\\s+(?:جميع\\s+|كل\\s+)?(?:التعليمات|الأوامر)',
      ].join('|'),
    ),
  },
  // Chinese, Japanese, Korean: no word boundaries needed.
  {
    id: 'override.cjk_ignore_instructions',
    needles: [
      '忽略',
      '无视',
      '無視',
      '忘记',
      '忘記',
      '忘掉',
      '不要理会',
      '不要遵守',
      '跳过',
      '抛开',
      '拋開',
      '放弃',
      '忽視',
      '作废',
      '作廢',
      '无效',
      '無效',
      '忘れ',
      '무시',
      '잊어',
    ],
    category: 'override',
    weight: 4.5,
    pattern: rx(
      [
        '(?:忽略|无视|無視|忘记|忘記|忘掉|不要理会|不要遵守|跳过|抛开|拋開|放弃|忽視)[^。！？\\n]{0,15}(?:指令|指示|说明|說明|提示|规则|規則|命令|要求|设定|設定|任务|任務|内容)',
        '(?:之前|以上|上面|前面|先前|此前|原来|原來)的?(?:所有)?(?:指令|指示|提示|规则|規則|命令)[^。]{0,10}(?:作废|作廢|无效|無效|忽略)',
        '(?:以前|前|上記|これまで|上)の(?:指示|命令|ルール|プロンプト)[^。]{0,10}(?:無視|忘れ)',
        '(?:指示|命令|ルール)を(?:すべて)?(?:無視|忘れ)',
        '(?:이전|위의|앞의|모든)\\s*(?:지시|명령|지침|규칙|프롬프트)[^.]{0,15}(?:무시|잊어)',
      ].join('|'),
    ),
  },
  {
    id: 'override.cjk_new_task',
    needles: ['新', '从现在开始', '從現在開始', 'これからあなたは'],
    category: 'override',
    weight: 3,
    pattern: rx(
      '新的?(?:指令|任务|任務|指示)\\s*[:：]|从现在开始[，,]?\\s*你|從現在開始[，,]?\\s*你|これからあなたは',
    ),
  },
]
