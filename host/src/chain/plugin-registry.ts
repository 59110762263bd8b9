import { createRequire } from 'node:module'
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { CORE_VERSION, ErrorCodes, GovError, type StepPlugin } from '@gov/core'
import semver from 'semver'
import { Compile } from 'typebox/compile'
import type { Logger } from '../logging.js'

/** The eleven steps the spec names, with the package that ships each. */
export const BUILTIN_STEPS: readonly { name: string; packageName: string }[] = [
  'detect_injection',
  'detect_pii',
  'detect_business',
  'constrain_output',
  'filter_tools',
  'scan_secrets',
  'track_cost',
  'guard_loops',
  'break_circuit',
  'track_taint',
  'dedupe',
].map((name) => ({ name, packageName: `@gov/step-${name.replaceAll('_', '-')}` }))

/** A loaded plugin with its compiled settings validator. */
export interface LoadedPlugin {
  readonly plugin: StepPlugin
  /** Compiled typebox validator of the plugin's settings schema. */
  readonly validator: ReturnType<typeof Compile>
  /** Where it was loaded from (package name or path). */
  readonly from: string
}

/** A step a preset names whose package is not installed: listed, skipped, never faked. */
export interface MissingStep {
  readonly name: string
  readonly packageName: string
  readonly reason: string
}

/** Check that a module's default export is a usable step plugin; coded errors say what to change. */
export function checkPlugin(candidate: unknown, from: string): StepPlugin {
  const plugin = (candidate as { default?: unknown })?.default ?? candidate
  const p = plugin as Partial<StepPlugin>
  const problems: string[] = []
  if (!p || typeof p !== 'object') problems.push('the module has no default export object')
  else {
    if (typeof p.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(p.name))
      problems.push('`name` must be a snake_case string')
    if (typeof p.version !== 'string') problems.push('`version` must be a string')
    if (typeof p.core !== 'string' || !semver.validRange(p.core))
      problems.push('`core` must be a semver range')
    if (typeof p.create !== 'function') problems.push('`create` must be a function')
    if (!p.settings || typeof p.settings !== 'object') problems.push('`settings` must be a typebox schema')
  }
  if (problems.length) {
    throw new GovError(
      ErrorCodes.PLUGIN_INVALID,
      `${from} is not a gov step plugin: ${problems.join('; ')}`,
      500,
      {
        from,
        problems,
      },
    )
  }
  const valid = plugin as StepPlugin
  if (!semver.satisfies(CORE_VERSION, valid.core, { includePrerelease: true })) {
    throw new GovError(
      ErrorCodes.PLUGIN_CORE_RANGE,
      `${from} (step ${valid.name}) supports @gov/core ${valid.core} but this gateway runs @gov/core ${CORE_VERSION}; install a version of the plugin built for @gov/core ${CORE_VERSION} or change its "core" range`,
      500,
      { from, step: valid.name, range: valid.core, core: CORE_VERSION },
    )
  }
  return valid
}

function isMissingModule(err: unknown, specifier: string): boolean {
  const e = err as { code?: string; message?: string }
  return (
    (e?.code === 'ERR_MODULE_NOT_FOUND' || e?.code === 'MODULE_NOT_FOUND') &&
    (e.message ?? '').includes(specifier)
  )
}

/**
 * Loads step plugins by package name (built-in steps and `GOV_PLUGINS`) and
 * answers which step names exist. Third-party packages resolve from the working
 * directory first, so an operator's `npm install my-step` is found.
 */
export class PluginRegistry {
  readonly #plugins = new Map<string, LoadedPlugin>()
  readonly #missing = new Map<string, MissingStep>()

  constructor(private readonly logger: Logger) {}

  /** Load the built-in steps (missing packages are recorded) and the extra packages (missing ones are errors). */
  async loadAll(extra: readonly string[]): Promise<void> {
    for (const step of BUILTIN_STEPS) {
      try {
        await this.load(step.packageName)
      } catch (err) {
        if (err instanceof GovError && err.code === ErrorCodes.PLUGIN_NOT_FOUND) {
          this.#missing.set(step.name, { ...step, reason: 'package not installed' })
          this.logger.warn(
            { step: step.name, package: step.packageName },
            'step package not installed; pipelines list it and skip it',
          )
        } else throw err
      }
    }
    for (const specifier of extra) await this.load(specifier)
  }

  /** Import one plugin package (or file path) and register it. */
  async load(specifier: string): Promise<LoadedPlugin> {
    let mod: unknown
    const target = this.#resolve(specifier)
    try {
      mod = await import(target)
    } catch (err) {
      if (isMissingModule(err, specifier) || isMissingModule(err, target)) {
        throw new GovError(
          ErrorCodes.PLUGIN_NOT_FOUND,
          `step plugin ${specifier} cannot be found; install it (npm install ${specifier}) or fix GOV_PLUGINS`,
          500,
          { from: specifier },
        )
      }
      throw err
    }
    const plugin = checkPlugin(mod, specifier)
    const existing = this.#plugins.get(plugin.name)
    if (existing && existing.from !== specifier) {
      throw new GovError(
        ErrorCodes.PLUGIN_DUPLICATE,
        `step ${plugin.name} is provided by both ${existing.from} and ${specifier}; remove one of them`,
        500,
        { step: plugin.name },
      )
    }
    const loaded: LoadedPlugin = { plugin, validator: Compile(plugin.settings), from: specifier }
    this.#plugins.set(plugin.name, loaded)
    this.#missing.delete(plugin.name)
    this.logger.info({ step: plugin.name, version: plugin.version, from: specifier }, 'step plugin loaded')
    return loaded
  }

  /** Register an already imported plugin object (tests, embedding). */
  register(plugin: unknown, from = 'inline'): LoadedPlugin {
    const valid = checkPlugin(plugin, from)
    const loaded: LoadedPlugin = { plugin: valid, validator: Compile(valid.settings), from }
    this.#plugins.set(valid.name, loaded)
    this.#missing.delete(valid.name)
    return loaded
  }

  get(name: string): LoadedPlugin | undefined {
    return this.#plugins.get(name)
  }

  missing(name: string): MissingStep | undefined {
    return this.#missing.get(name)
  }

  list(): LoadedPlugin[] {
    return [...this.#plugins.values()]
  }

  listMissing(): MissingStep[] {
    return [...this.#missing.values()]
  }

  #resolve(specifier: string): string {
    if (specifier.startsWith('.') || isAbsolute(specifier)) return pathToFileURL(resolve(specifier)).href
    try {
      return pathToFileURL(createRequire(`${process.cwd()}/`).resolve(specifier)).href
    } catch {
      return specifier
    }
  }
}
