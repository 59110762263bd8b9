import { ErrorCodes, GovError, type Mode } from '@gov/core'
import { Type } from 'typebox'
import { Compile } from 'typebox/compile'
import { Value } from 'typebox/value'
import type { Overrides } from '../storage/store.js'
import type { PluginRegistry } from './plugin-registry.js'
import { PRESETS } from './presets.js'

/** What the host does when a step's hook throws. */
export type OnError = 'fail_closed' | 'fail_open'

/** Settings every step has, owned by the host. */
const HOST_SETTINGS = Compile(
  Type.Object(
    {
      disabled: Type.Optional(Type.Boolean()),
      on_error: Type.Optional(Type.Union([Type.Literal('fail_closed'), Type.Literal('fail_open')])),
    },
    { additionalProperties: true },
  ),
)

/** One step of a resolved pipeline. */
export interface ResolvedStep {
  readonly name: string
  /** `active` runs; `disabled` was switched off by an override; `missing` has no installed package. */
  readonly status: 'active' | 'disabled' | 'missing'
  readonly package: string | undefined
  readonly version: string | undefined
  /** The step's own settings with defaults filled in (validated against its schema). */
  readonly settings: Record<string, unknown>
  readonly on_error: OnError
}

/** A pipeline as a chain will run it. */
export interface ResolvedPipeline {
  readonly preset: string
  readonly mode: Mode
  readonly steps: readonly ResolvedStep[]
}

function settingsError(step: string, problems: { path: string; message: string }[]): GovError {
  return new GovError(
    ErrorCodes.STEP_SETTINGS_INVALID,
    `settings of step ${step} are invalid: ${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')}`,
    400,
    { step, problems },
  )
}

/**
 * Resolve preset + overrides into the steps a chain runs. Overrides are merged
 * over the preset's settings for that step; `{ "disabled": true }` removes a
 * step; an override naming a step the preset lacks appends it (third-party steps).
 * Throws coded GovErrors (400) for an unknown preset, an unknown step or invalid settings.
 */
export function resolvePipeline(
  registry: PluginRegistry,
  presetName: string,
  overrides: Overrides,
): ResolvedPipeline {
  const preset = PRESETS[presetName]
  if (!preset) {
    throw new GovError(
      ErrorCodes.PIPELINE_UNKNOWN_PRESET,
      `preset "${presetName}" does not exist; use one of ${Object.keys(PRESETS).join(', ')}`,
      400,
      { preset: presetName, presets: Object.keys(PRESETS) },
    )
  }
  if (!overrides || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new GovError('invalid_request', 'overrides must be an object of step name to settings object', 400)
  }
  const order = preset.steps.map((s) => s.name)
  for (const name of Object.keys(overrides)) if (!order.includes(name)) order.push(name)

  const steps = order.map((name): ResolvedStep => {
    const base = preset.steps.find((s) => s.name === name)?.settings ?? {}
    const override = overrides[name] ?? {}
    if (typeof override !== 'object' || override === null || Array.isArray(override)) {
      throw settingsError(name, [{ path: '', message: 'override must be an object' }])
    }
    if (!HOST_SETTINGS.Check(override)) {
      throw settingsError(
        name,
        HOST_SETTINGS.Errors(override).map((e) => ({ path: e.instancePath, message: e.message })),
      )
    }
    const { disabled, on_error, ...own } = override as { disabled?: boolean; on_error?: OnError }
    const onError: OnError = on_error ?? 'fail_closed'
    const loaded = registry.get(name)
    if (!loaded) {
      const missing = registry.missing(name)
      if (!missing) {
        throw new GovError(
          ErrorCodes.PIPELINE_UNKNOWN_STEP,
          `step "${name}" is not provided by any loaded plugin; install its package and name it in GOV_PLUGINS, or remove it from overrides`,
          400,
          { step: name },
        )
      }
      return {
        name,
        status: 'missing',
        package: missing.packageName,
        version: undefined,
        settings: { ...base, ...own },
        on_error: onError,
      }
    }
    const merged = Value.Default(loaded.plugin.settings, structuredClone({ ...base, ...own })) as Record<
      string,
      unknown
    >
    if (!loaded.validator.Check(merged)) {
      throw settingsError(
        name,
        loaded.validator.Errors(merged).map((e) => ({ path: e.instancePath, message: e.message })),
      )
    }
    return {
      name,
      status: disabled ? 'disabled' : 'active',
      package: loaded.plugin.packageName,
      version: loaded.plugin.version,
      settings: merged,
      on_error: onError,
    }
  })
  return { preset: preset.name, mode: preset.mode, steps }
}
