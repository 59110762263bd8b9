import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** `../shared/datasets/` next to the repository root, resolved from `plugins/scan-secrets/dist/eval/`. */
export const DATASETS_DIR = new URL('../../../../../shared/datasets/', import.meta.url)

/** One row of secrets-dev.jsonl (`rule_id`) or secrets-train.jsonl (`kind`, `form`, `group`, `source`). */
export interface SecretRow {
  readonly text: string
  readonly label: 0 | 1
  readonly rule_id?: string
  readonly kind?: string
  readonly form?: 'snippet' | 'bare' | 'templated'
  readonly group?: string
  readonly source?: string
}

/** The rows of a dataset file, or undefined (with the path looked at) when it is absent. */
export function loadRows(file: string): { rows: SecretRow[] } | { missing: string } {
  const path = fileURLToPath(new URL(file, DATASETS_DIR))
  if (!existsSync(path)) return { missing: path }
  const rows = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as SecretRow)
  return { rows }
}
