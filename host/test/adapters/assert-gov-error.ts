import assert from 'node:assert/strict'
import { GovError } from '@gov/core'

/** Assert that `run` throws a GovError with this code and status (and `details.field`, when given). */
export function assertGovError(run: () => unknown, code: string, status: number, field?: string) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof GovError, `expected a GovError, got ${String(error)}`)
    assert.equal(error.code, code)
    assert.equal(error.status, status)
    if (field !== undefined) assert.equal(error.details?.field, field)
    return true
  })
}
