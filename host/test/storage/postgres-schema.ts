/**
 * Per-run Postgres schemas, so parallel test files (and parallel CI jobs on one
 * database) never see each other's tables.
 */
import { randomBytes } from 'node:crypto'
import pg from 'pg'

/** The test database URL, or undefined when Postgres tests should skip. */
export const TEST_DATABASE_URL = process.env.GOV_TEST_DATABASE_URL || undefined

/** Skip option for `describe` when no test database is configured. */
export const skipWithoutDatabase = TEST_DATABASE_URL ? false : 'GOV_TEST_DATABASE_URL not set'

/** A fresh schema name, unique to this run. */
export function uniqueSchema(label: string): string {
  return `gov_test_${label}_${process.pid}_${randomBytes(3).toString('hex')}`
}

/** Drop a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`drop schema if exists "${schema}" cascade`)
  } finally {
    await client.end()
  }
}
