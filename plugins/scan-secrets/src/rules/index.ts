import type { SecretRule } from '../rule.js'
import { AI_RULES } from './ai.js'
import { CHAT_RULES } from './chat.js'
import { CLOUD_RULES } from './cloud.js'
import { CODE_RULES } from './code.js'
import { CONTEXT_RULES } from './context.js'
import { GENERIC_RULES } from './generic.js'
import { PAYMENT_RULES } from './payments.js'
import { PREFIXED_RULES } from './prefixed.js'
import { SAAS_RULES } from './saas.js'
import { STRUCTURAL_RULES } from './structural.js'

/** Every rule the scanner knows, vendor rules first. */
export const ALL_RULES: readonly SecretRule[] = [
  ...CLOUD_RULES,
  ...AI_RULES,
  ...CODE_RULES,
  ...CHAT_RULES,
  ...PAYMENT_RULES,
  ...SAAS_RULES,
  ...PREFIXED_RULES,
  ...STRUCTURAL_RULES,
  ...GENERIC_RULES,
  ...CONTEXT_RULES,
]
