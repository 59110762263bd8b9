/**
 * @gov/core — the step SDK. Everything a governance step needs and nothing of
 * the host: the step contract, the Exchange model, findings, verdicts,
 * classification levels and coded errors. No I/O.
 */

export type { Static, TSchema } from 'typebox'
export { Type } from 'typebox'
export * from './classification.js'
export * from './errors.js'
export * from './exchange.js'
export * from './finding.js'
export * from './flight.js'
export * from './services.js'
export * from './session.js'
export * from './step.js'
export * from './text-cache.js'
export * from './verdict.js'
export { PACKAGE_VERSION as CORE_VERSION } from './version.js'
