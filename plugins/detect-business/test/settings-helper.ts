/**
 * Settings the way the host builds them: schema defaults filled in, then
 * checked against the schema. Shared by the tests and the eval.
 */
import assert from 'node:assert/strict'
import { Value } from 'typebox/value'
import { BusinessDetector } from '../src/business-detector.js'
import type { Detection } from '../src/detection.js'
import { type BusinessSettings, SettingsSchema } from '../src/settings.js'

/** `overrides` with the schema's defaults filled in; fails when the result does not match the schema. */
export function settingsWith(overrides: Record<string, unknown> = {}): BusinessSettings {
  const settings = Value.Default(SettingsSchema, structuredClone(overrides))
  assert.ok(
    Value.Check(SettingsSchema, settings),
    `settings do not match the schema: ${JSON.stringify(overrides)}`,
  )
  return settings as BusinessSettings
}

/** True when `overrides` (with defaults) pass the schema, as the host checks them. */
export function schemaAccepts(overrides: Record<string, unknown>): boolean {
  return Value.Check(SettingsSchema, Value.Default(SettingsSchema, structuredClone(overrides)))
}

/** A detector for `overrides`, as `create()` would build it. */
export function detectorWith(overrides: Record<string, unknown> = {}): BusinessDetector {
  return new BusinessDetector(settingsWith(overrides))
}

/** The matched text of each detection, with its type: handy for asserting what was found. */
export function found(text: string, detections: readonly Detection[]): string[] {
  return detections.map((d) => `${d.type}:${text.slice(d.start, d.end)}`)
}
