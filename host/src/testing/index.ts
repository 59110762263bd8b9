/**
 * Test helpers of the host (`@gov/host/testing`): a mock provider speaking
 * both vendors' formats, and the recorded provider answers it replays.
 */

export * from './fake-vault.js'
export * from './fixture-steps.js'
export * from './mock-provider.js'
export type { MockVendor } from './mock-request.js'
export * from './test-certificates.js'
export * from './test-gateway.js'
export * from './transcripts.js'
