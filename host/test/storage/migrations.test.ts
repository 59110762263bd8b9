import assert from 'node:assert/strict'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { checkSchemaName, MIGRATIONS_FOLDER, SCHEMA_INVALID } from '../../src/storage/sql-connection.js'

describe('migrations folder', () => {
  it('is found from the compiled module and holds SQL migrations', async () => {
    const files = (await readdir(MIGRATIONS_FOLDER)).filter((f) => f.endsWith('.sql'))
    assert.ok(files.length >= 1)
    const journal = JSON.parse(await readFile(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8'))
    assert.equal(journal.entries.length, files.length)
  })

  // drizzle-kit writes `REFERENCES "public"."…"` for foreign keys; that would tie the
  // tables to `public` and break stores configured with their own schema.
  it('never names the public schema, so a store can live in its own schema', async () => {
    for (const file of (await readdir(MIGRATIONS_FOLDER)).filter((f) => f.endsWith('.sql'))) {
      const text = await readFile(join(MIGRATIONS_FOLDER, file), 'utf8')
      assert.doesNotMatch(text, /"public"\./, `${file} names the public schema; remove the prefix`)
    }
  })
})

describe('schema names', () => {
  it('accepts plain lower-case identifiers and rejects anything else with a code', () => {
    assert.equal(checkSchemaName('gov_test_1'), 'gov_test_1')
    for (const bad of ['Gov', '1abc', 'a-b', 'a"; drop table x; --', '', 'x'.repeat(64)]) {
      assert.throws(() => checkSchemaName(bad), { code: SCHEMA_INVALID })
    }
  })
})
