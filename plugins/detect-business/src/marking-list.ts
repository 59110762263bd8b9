import type { ClassificationLevel } from '@gov/core'

/**
 * How much a marking means on its own:
 * - `phrase`: a fixed marking phrase ("internal use only", "strictly confidential") — counts in running text;
 * - `word`: a word that is also ordinary vocabulary ("confidential", "proprietary") — needs capitals,
 *   a header/footer or label position, or a statement about the text ("this memo is confidential");
 * - `ambiguous`: a common word ("secret", "restricted", "NDA") — counts only as a heading or label.
 */
export type MarkingStrength = 'phrase' | 'word' | 'ambiguous'

/** One confidentiality marking. */
export interface MarkingEntry {
  /** Canonical text; reported in finding details (it is a label, not sensitive). */
  readonly text: string
  readonly level: ClassificationLevel
  readonly strength: MarkingStrength
}

function entries(
  level: ClassificationLevel,
  strength: MarkingStrength,
  texts: readonly string[],
): MarkingEntry[] {
  return texts.map((text) => ({ text, level, strength }))
}

/**
 * The built-in markings. Levels: `restricted` for the highest tiers (strictly
 * confidential, secret, legal privilege), `confidential` for ordinary
 * confidentiality and NDA markings, `internal` for internal-use markings.
 */
export const BUILT_IN_MARKINGS: readonly MarkingEntry[] = [
  ...entries('restricted', 'phrase', [
    'strictly confidential',
    'highly confidential',
    'strictly private and confidential',
    'attorney-client privileged',
    'attorney client privilege',
    'privileged and confidential',
    'privileged & confidential',
    'legally privileged',
    'eyes only',
    'streng vertraulich',
    'strictement confidentiel',
    'estrictamente confidencial',
    'strettamente riservato',
    'strettamente confidenziale',
    '極秘',
    '绝密',
    '絕密',
    '극비',
  ]),
  ...entries('restricted', 'word', ['top secret']),
  ...entries('restricted', 'ambiguous', ['secret', 'restricted', 'geheim']),
  ...entries('confidential', 'phrase', [
    'company confidential',
    'business confidential',
    'confidential and proprietary',
    'proprietary and confidential',
    'confidential information of',
    'private and confidential',
    'private & confidential',
    'do not distribute this',
    'do not distribute outside',
    'do not distribute externally',
    'do not forward this',
    'do not forward outside',
    'do not share this',
    'do not share outside',
    'do not share externally',
    'not for distribution',
    'not for external distribution',
    'not for public release',
    'not for public disclosure',
    'under nda',
    'subject to nda',
    'subject to an nda',
    'subject to the nda',
    'covered by nda',
    'covered by our nda',
    'covered by the nda',
    'nda protected',
    'under embargo',
    'embargoed until',
    'diffusion restreinte',
    'nicht zur weitergabe',
    '社外秘',
    '部外秘',
    '대외비',
    '機密文件',
    '机密文件',
  ]),
  ...entries('confidential', 'word', [
    'confidential',
    'do not distribute',
    'do not forward',
    'do not share',
    'proprietary',
    'trade secret',
    'embargoed',
    'vertraulich',
    'confidentiel',
    'confidentielle',
    'confidencial',
    'riservato',
    'riservata',
    'confidenziale',
    'vertrouwelijk',
    'poufne',
    '机密',
    '機密',
  ]),
  ...entries('confidential', 'ambiguous', ['nda']),
  ...entries('internal', 'phrase', [
    'internal use only',
    'for internal use only',
    'internal only',
    'for internal distribution only',
    'internal distribution only',
    'internal purposes only',
    'nur für den internen gebrauch',
    'nur für den dienstgebrauch',
    'usage interne',
    'uso interno',
    'solo per uso interno',
    '内部资料',
    '内部資料',
    '社内限り',
  ]),
  ...entries('internal', 'ambiguous', ['internal']),
]
