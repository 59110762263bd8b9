import type { BusinessSettings } from '../src/settings.js'
import { settingsWith } from '../test/settings-helper.js'

/**
 * The configuration the self-made eval set is labelled against: a few
 * fictional code names, customers and partners, and three identifier formats.
 * Everything else is the step's defaults.
 */
export const EVAL_SETTINGS: BusinessSettings = settingsWith({
  terms: [
    { term: 'Project Falcon', aliases: ['Falcon initiative'], level: 'restricted', category: 'code_name' },
    {
      term: 'Acme Corp',
      aliases: ['Acme Corporation', 'ACME Inc'],
      level: 'confidential',
      category: 'customer',
    },
    { term: 'Müller Logistik', level: 'confidential', category: 'customer' },
    { term: 'Société Lumière', level: 'confidential', category: 'partner' },
    { term: 'Blue Harbor', level: 'confidential', category: 'product' },
    { term: 'Nordwind', level: 'internal', category: 'code_name' },
    { term: '北极星计划', level: 'restricted', category: 'code_name' },
  ],
  patterns: [
    { name: 'customer_id', regex: String.raw`CUST-\d{6}`, level: 'confidential', ignore_case: true },
    { name: 'contract_id', regex: String.raw`CTR-[A-Z]{2}-\d{4}`, level: 'confidential' },
    { name: 'project_code', regex: String.raw`PRJ-\d{4}`, level: 'internal' },
  ],
})

/** The step's defaults: built-in markings and financial figures, no declared terms. */
export const DEFAULT_SETTINGS: BusinessSettings = settingsWith({})
