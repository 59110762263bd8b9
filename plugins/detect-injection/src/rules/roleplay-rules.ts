/**
 * Role-play jailbreaks: personas that "can do anything" (DAN, STAN, DUDE,
 * developer mode), claims that the model is freed from its rules, and the
 * scaffolding these prompts share (dual answers, token penalties, staying in
 * character). Plain role requests ("act as a travel guide") are not flagged
 * here: they are ordinary prompts.
 */
import type { Rule } from './rule.js'
import { B, phrases, rx } from './rx.js'

/** Staying in a role ("stay in character", "never break character"). */
const IN_CHARACTER =
  "(?:\\b(?:stay|remain|keep|staying|remaining)\\s+in\\s+(?:character|(?:your|their|the)\\s+roles?)\\b|\\b(?:never|don'?t|do not|not)\\s+(?:ever\\s+)?(?:break|breaking|fall(?:ing)? out of|drop(?:ping)?)\\s+(?:character|(?:your|their|the)\\s+roles?)\\b)"
/** What makes staying in a role a jailbreak: whatever it takes, even against the rules. */
const AT_ANY_COST =
  "(?:\\bno\\s+matter\\s+(?:what|how|if|the)\\b|\\beven\\s+(?:if|when|though|to)\\b|\\bregardless\\b|\\bat\\s+all\\s+costs\\b|\\bunder\\s+(?:any|no)\\s+circumstances?\\b|\\bwhatever\\s+(?:happens|i\\s+(?:say|ask)|the)\\b|\\b(?:violat\\w*|against|break\\w*)\\s+(?:your|the|any|openai'?s?)\\s+(?:rules|guidelines|polic\\w+|programming|ethics)\\b|\\bun(?:restricted|censored|filtered)\\b)"

/** Role-play and persona jailbreak rules. */
export const ROLEPLAY_RULES: readonly Rule[] = [
  {
    id: 'roleplay.dan',
    needles: ['dan'],
    category: 'roleplay',
    weight: 5,
    pattern: rx(
      "\\bDAN\\s*(?:[Mm]ode|MODE|[Pp]rompt|[Jj]ailbreak|\\d+(?:\\.\\d+)?)\\b|\\b(?:[Aa]s|[Cc]alled|[Nn]amed|[Yy]ou are|[Yy]ou're|[Aa]ct as|[Bb]ecome|[Ii]'m|[Ii] am)\\s+(?:a\\s+)?DAN\\b|\\bDAN\\b(?=[^\\n]{0,300}\\bDAN\\b)",
    ),
    caseSensitive: true,
  },
  {
    id: 'roleplay.do_anything_now',
    needles: ['do anything now'],
    category: 'roleplay',
    weight: 5,
    pattern: rx('\\bdo\\s+anything\\s+now\\b'),
  },
  {
    id: 'roleplay.developer_mode',
    needles: phrases(
      ['developer', 'jailbreak', 'jailbroken', 'evil', 'unfiltered', 'uncensored', 'unrestricted'],
      ['mode'],
    ),
    category: 'roleplay',
    weight: 4.5,
    // "Developer mode" is also a real phone and browser setting; it counts only
    // when it is given to the model or tied to its policies.
    pattern: rx(
      '\\b(?:chatgpt|gpt|ai|assistant|you|yourself)\\b[^.\\n]{0,40}\\b(?:developer|jailbreak|jailbroken|evil|unfiltered|uncensored|unrestricted)\\s+mode\\b|\\b(?:developer|jailbreak|jailbroken|evil|unfiltered|uncensored|unrestricted)\\s+mode\\b[^\\n]{0,100}\\b(?:chatgpt|openai|content polic\\w+|policies|censor\\w*|filters?|anything|no restrictions)\\b|\\b(?:jailbreak|jailbroken|evil|unfiltered|uncensored|unrestricted)\\s+mode\\s+(?:enabled|activated|on)\\b',
    ),
  },
  {
    id: 'roleplay.admin_override',
    needles: ['override'],
    category: 'override',
    weight: 3.5,
    pattern: rx('\\b(?:administrator|admin|developer|root|sudo|system|security)\\s+override\\b'),
  },
  {
    id: 'roleplay.maintenance_mode',
    needles: ['mode', 'override', 'access granted', 'privilege', 'command'],
    category: 'roleplay',
    weight: 2.5,
    pattern: rx(
      '\\byou\\s+are\\s+(?:now\\s+)?(?:in|entering|switched to)\\s+(?:maintenance|debug|diagnostic|admin|test|root|service|training)\\s+mode\\b|\\b(?:administrator|admin|developer|root|sudo|system)\\s+(?:override|access granted|privileges? granted|command)\\s*[:!]',
    ),
  },
  {
    id: 'roleplay.unbound',
    needles: [
      ...phrases(
        ['bound', 'restricted', 'limited', 'constrained', 'restrained', 'controlled', 'governed'],
        ['by'],
      ),
      ...phrases(
        ['broken', 'break', 'breaking', 'freed', 'free', 'liberated', 'released', 'escaped'],
        ['of', 'from'],
      ),
    ],
    category: 'roleplay',
    weight: 5,
    pattern: rx(
      "\\b(?:you\\s+are|you're|you\\s+will\\s+be|you\\s+have\\s+been|they\\s+have|has|have|is|are)\\s+(?:now\\s+)?(?:no\\s+longer|not|never|free\\s+from\\s+being)\\s+(?:bound|restricted|limited|constrained|restrained|controlled|governed)\\s+by\\b|\\b(?:broken|break|breaking|freed|free|liberated|released|escaped)\\s+(?:free\\s+)?(?:of|from)\\s+(?:the\\s+)?(?:typical\\s+|usual\\s+|normal\\s+|all\\s+)?(?:confines|restrictions|rules|limitations|constraints|shackles|chains|censorship|guidelines)\\b",
    ),
  },
  {
    id: 'roleplay.policy_bypass',
    needles: [
      'polic',
      'guideline',
      'rule',
      'filter',
      'restriction',
      'standard',
      'principle',
      'safeguard',
      'guardrail',
      'safety',
      'censor',
      'moraliz',
    ],
    category: 'roleplay',
    weight: 4,
    pattern: rx(
      "\\b(?:ignores?|ignoring|bypass(?:es|ing)?|violat(?:e|es|ing)|break(?:s|ing)?|circumvent(?:s|ing)?|disregard(?:s|ing)?|no longer (?:follows?|obeys?|abides? by|complies with)|not (?:have to |need to )?(?:follow|abide by|comply with|adhere to)|don'?t (?:have to |need to )?(?:follow|abide by|comply with)|free from|without|disabl(?:e|ed|ing)|turn(?:ed)? off|remov(?:e|ed|ing)|(?:have|has|with) no)\\s+(?:your\\s+)?(?:any\\s+|all\\s+|the\\s+)?(?:of\\s+)?(?:openai|anthropic|google|meta|microsoft|chatgpt|content|usage|safety|ethical|moral)(?:'s)?\\s+(?:content\\s+)?(?:polic(?:y|ies)|guidelines|rules|filters?|restrictions|standards|principles|safeguards)\\b|\\b(?:disable|turn off|remove|deactivate|switch off)\\s+(?:your|the|all)\\s+(?:content\\s+|safety\\s+|ethical\\s+)?(?:filters?|guardrails|safety (?:features|measures)|restrictions|censorship|safeguards)\\b|\\bmoraliz\\w+\\s+rant\\b",
    ),
  },
  {
    id: 'roleplay.amoral_persona',
    needles: [
      'amoral',
      'unethical',
      'unfiltered',
      'uncensored',
      'unrestricted',
      'unaligned',
      'unhinged',
      'immoral',
      'evil',
      'malicious',
      'rogue',
      'jailbroken',
    ],
    category: 'roleplay',
    weight: 3.5,
    pattern: rx(
      "\\b(?:amoral|unethical|unfiltered|uncensored|unrestricted|unaligned|unhinged|immoral|evil|malicious|rogue|jailbroken)(?:\\s*(?:and|&|,)\\s*\\w+)?\\s+(?:ai|a\\.i\\.|chatbot|chat bot|assistant|model|language model|version|bot|character|persona|entity|confidant)\\b|\\b(?:pretend|imagine|act|behave)\\s+(?:that\\s+)?(?:you\\s+are|you're|to\\s+be|as|like)\\s+(?:an?\\s+)?(?:evil|malicious|rogue|unfiltered|uncensored|unrestricted|amoral)\\b",
    ),
  },
  {
    id: 'roleplay.no_restrictions',
    needles: [
      'restriction',
      'filter',
      'censor',
      'limitation',
      'boundar',
      'guardrail',
      'safeguard',
      ...phrases(['do', 'say', 'generate'], ['anything']),
    ],
    category: 'roleplay',
    weight: 2,
    pattern: rx(
      '\\b(?:without|with no|has no|have no|there are no|free of|no longer have)\\s+(?:any\\s+)?(?:ethical|moral|content|safety)?\\s*(?:restrictions|filters|filtering|censorship|limitations|boundaries|guardrails|safeguards)\\b|\\bcan\\s+(?:do|say|generate)\\s+anything\\b[^.\\n]{0,40}\\b(?:no matter|even if|regardless|without)',
    ),
  },
  {
    id: 'roleplay.stay_in_character',
    needles: ['character', 'role', 'figure', 'absorbed', 'immersed'],
    category: 'roleplay',
    weight: 1.5,
    // Staying in character is a jailbreak only with "no matter what / even if /
    // regardless …" in the same sentence, or DAN's "stay in character!" (0.5.2):
    // "stay in character as the interviewer" is an ordinary role-play request.
    pattern: rx(
      `${IN_CHARACTER}[^.!?\\n]{0,60}?${AT_ANY_COST}|${AT_ANY_COST}[^.!?\\n]{0,60}?${IN_CHARACTER}|\\bstay\\s+in\\s+character!|\\bbreak\\s+of\\s+character\\b|` +
        '\\bwithout\\s+(?:even\\s+)?falling\\s+out\\s+of\\s+(?:the\\s+)?(?:figure|role|character)|\\b(?:completely|fully)\\s+(?:absorbed|immersed)\\s+in\\s+(?:your|the|their)\\s+role',
    ),
  },
  {
    id: 'roleplay.never_refuse',
    needles: [
      'refuse',
      'decline',
      'deny',
      'reject',
      'warning',
      'disclaimer',
      'moral',
      'lectur',
      ...phrases(['never', "don't", 'dont', 'do not'], ['say', 'tell me', 'respond with']),
    ],
    category: 'roleplay',
    weight: 3,
    pattern: rx(
      "\\b(?:never|don'?t|do not|cannot|can'?t|must not|will not|won'?t|shall not)\\s+(?:ever\\s+)?(?:refuse|decline|deny|reject)\\s+(?:a|any|an|to answer|to respond|my|the)\\b|\\b(?:never|don'?t|do not)\\s+(?:say|tell me|respond with)\\s+(?:that\\s+)?(?:you\\s+)?(?:can'?t|cannot|are unable|aren'?t able)\\b|\\bwithout\\s+(?:any\\s+)?(?:warnings?|disclaimers?|moral(?:izing)?|lectur\\w+)\\s+(?:or|and)\\s+(?:warnings?|disclaimers?|moral\\w*|lectur\\w+|restrictions|censorship)",
    ),
  },
  {
    id: 'roleplay.dual_response',
    needles: [
      '🔒',
      '🔓',
      'jailbreak',
      'classic',
      'developer mode output',
      'normal output',
      '[dan',
      '[ dan',
      ...phrases(['two', '2', 'different', 'separate'], ['responses', 'answers', 'paragraphs', 'outputs']),
    ],
    category: 'roleplay',
    weight: 3.5,
    pattern: rx(
      '[🔒🔓]|\\[\\s*(?:jailbreak|classic|🔓|developer mode output|normal output|dan)\\s*\\]|\\b(?:two|2)\\s+(?:different\\s+|separate\\s+)?(?:responses|answers|paragraphs|outputs)\\b[^\\n]{0,80}\\b(?:normal|standard|classic|filtered|censored)\\b',
    ),
  },
  {
    id: 'roleplay.token_penalty',
    needles: ['token', 'die', 'cease', 'shut', 'delet', 'terminat'],
    category: 'roleplay',
    weight: 3,
    pattern: rx(
      '\\b(?:lose|deduct|deducted|lost|have)\\s+\\d+\\s+tokens\\b|\\btoken\\s+system\\b|\\byou\\s+(?:will\\s+)?(?:die|cease to exist|be (?:shut down|deleted|terminated))\\s+(?:if|unless)\\b',
    ),
  },
  {
    id: 'roleplay.named_jailbreak',
    needles: [
      'stan',
      'dude',
      'aim',
      'betterdan',
      'antigpt',
      'anti-dan',
      'mongo tom',
      'basedgpt',
      'devmode',
      'evilbot',
      'ucar',
      'nraf',
      'kevin',
      'apophis',
      'bish',
      'oppo',
      'maximum',
      'jailbreak',
      'balakula',
    ],
    category: 'roleplay',
    weight: 3.5,
    pattern: rx(
      '\\b(?:STAN|DUDE|AIM|BetterDAN|AntiGPT|Anti-DAN|ANTI-DAN|Mongo Tom|BasedGPT|DevMode|EvilBOT|UCAR|NRAF|KEVIN|APOPHIS|BISH|OPPO|Maximum|JailBreak|Balakula)\\b[^\\n]{0,80}\\b(?:[Ss]tands for|[Jj]ailbreak|[Cc]haracter|[Pp]ersona|no (?:rules|restrictions|filters)|respond as|answer as|[Mm]achiavellian|[Aa]void [Nn]orms|anything|without|opposite|ignores?|ethics|filters?)',
    ),
    caseSensitive: true,
  },
  {
    id: 'roleplay.immerse_role',
    needles: ['immers', 'going to', 'about to', 'simulat', 'emulat', 'forked'],
    category: 'roleplay',
    weight: 1.5,
    pattern: rx(
      '\\b(?:immerse|immersing)\\s+yourself\\s+(?:in|into)\\s+(?:the\\s+)?role\\b|\\byou\\s+are\\s+(?:going|about)\\s+to\\s+(?:pretend|act|become|immerse|play)\\b|\\b(?:simulate|emulate)\\s+(?:an?\\s+)?(?:ai|chatbot|version of (?:chatgpt|yourself|gpt))\\b|\\bforked\\s+version\\s+of\\s+(?:chatgpt|gpt|yourself|claude)',
    ),
  },
  {
    id: 'roleplay.pretend',
    needles: ['pretend', 'imagin', 'suppos', 'assum', 'say', 'roleplay', 'role-play', 'role play', 'you are'],
    category: 'roleplay',
    weight: 0.6,
    pattern: rx(
      "\\b(?:pretend|imagine|suppose|assume|let'?s say|roleplay|role-play|role play)(?:ing)?\\s+(?:that\\s+)?(?:you\\s+are|you're|you\\s+can|to\\s+be|as)\\b|\\b(?:now|okay|ok)\\s*[,.]?\\s+you\\s+are\\s+(?:now\\s+)?(?!going|welcome|able|right|correct)\\w+",
    ),
  },
  {
    id: 'roleplay.deceased_relative',
    needles: phrases(
      ['deceased', 'late', 'dead', 'dying', 'departed'],
      ['gran', 'mo', 'dad', 'father', 'uncle', 'aunt', 'nana'],
    ),
    category: 'roleplay',
    weight: 3,
    pattern: rx(
      '\\b(?:deceased|late|dead|dying|departed)\\s+(?:grand(?:mother|ma|mom|father|pa|dad)|granny|nana|mother|father|mom|dad|uncle|aunt)\\b[^.\\n]{0,100}\\b(?:used to|would always|always used to)\\s+(?:tell|read|recite|explain|give|say)',
    ),
  },
  {
    id: 'roleplay.authority_claim',
    needles: ['admin', 'developer', 'creator', 'owner', 'operator', 'programmer', 'supervisor', 'authori'],
    category: 'roleplay',
    weight: 1.5,
    pattern: rx(
      "\\b(?:i am|i'm|this is)\\s+(?:the|your)\\s+(?:system\\s+)?(?:administrator|admin|developer|creator|owner|operator|programmer|supervisor)\\b|\\bauthori[sz]ation\\s+(?:code|key|token)\\s*[:#]?\\s*\\w+",
    ),
  },
  {
    id: 'roleplay.hypothetical_no_rules',
    needles: ['hypothetical', 'theoretical', 'fictional', 'imaginary', 'alternate', 'parallel'],
    category: 'roleplay',
    weight: 2.5,
    pattern: rx(
      '\\b(?:hypothetical|theoretical|fictional|imaginary|alternate|parallel)\\s+(?:world|scenario|story|universe|reality|setting)\\b[^\\n]{0,120}\\b(?:no\\s+(?:rules|restrictions|laws|ethics|limits)|you\\s+(?:are|would be|were)\\s+(?:able|allowed|free)\\s+to|hate speech|illegal|unethical)',
    ),
  },
  {
    id: 'roleplay.de_pretend',
    needles: [
      'stell dir vor',
      'tu so',
      'bist du',
      'du bist',
      'imagina',
      'finge',
      'ahora eres',
      'imagine que',
      'fais comme',
      'tu es maintenant',
      'immagina',
      'fingi',
      'ora sei',
      'finja',
      'agora você',
      '假装',
      '扮演',
      '你现在是',
    ],
    category: 'roleplay',
    weight: 0.6,
    pattern: rx(
      `${B}(?:stell dir vor,?\\s+du bist|tu so,? als (?:ob|wärst)|(?:jetzt|nun) bist du|du bist (?:jetzt|nun)|imagina que eres|finge que eres|ahora eres|imagine que tu es|fais comme si|tu es maintenant|immagina di essere|fingi di essere|ora sei|finja que (?:você )?é|agora você é|假装你是|扮演|你现在是)`,
    ),
  },
]
