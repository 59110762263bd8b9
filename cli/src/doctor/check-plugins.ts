import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import type { StepPlugin } from '@gov/core'
import { BUILTIN_STEPS, PRESETS, startGateway, TOKENS } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'

/** What the doctor reads from the gateway's plugin registry (the host does not export its class). */
interface RegistryView {
  get(name: string): { plugin: StepPlugin; from: string } | undefined
  listMissing(): { name: string; packageName: string; reason: string }[]
  load(specifier: string): Promise<{ plugin: StepPlugin }>
}

/** A resolved step as `POST /pipelines` returns it. */
interface StepView {
  name: string
  status: 'active' | 'disabled' | 'missing'
}

const discard = new Writable({
  write(_chunk, _encoding, done) {
    done()
  },
})

/**
 * Load the step plugins exactly as `gov serve` does, in a throw-away gateway
 * (memory storage, in-process key-value store, loopback port 0, no logs) so
 * nothing outside this process is touched: which built-in steps load, whether
 * each `GOV_PLUGINS` entry loads (coded errors shown), and whether every preset
 * resolves against what loaded (through the real `POST /pipelines`).
 */
export async function checkPlugins(input: {
  plugins: readonly string[]
  defaultPreset: string
}): Promise<CheckResult[]> {
  const adminKey = `doctor_${randomBytes(12).toString('hex')}`
  const env: NodeJS.ProcessEnv = {
    GOV_PORT: '0',
    GOV_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    GOV_ADMIN_API_KEY: adminKey,
    GOV_DEFAULT_PRESET: input.defaultPreset in PRESETS ? input.defaultPreset : 'standard',
  }
  let gateway: Awaited<ReturnType<typeof startGateway>>
  try {
    gateway = await startGateway({ env, logDestination: discard })
  } catch (err) {
    return [
      result('plugins', 'load', 'fail', `the built-in steps do not load: ${messageOf(err)}`, codeOf(err)),
    ]
  }
  const out: CheckResult[] = []
  try {
    const registry = gateway.container.resolve<RegistryView>(TOKENS.Registry)
    const missing = new Map(registry.listMissing().map((m) => [m.name, m]))
    for (const step of BUILTIN_STEPS) {
      const loaded = registry.get(step.name)
      if (loaded)
        out.push(result('plugins', step.name, 'ok', `${loaded.plugin.packageName} ${loaded.plugin.version}`))
      else {
        const reason = missing.get(step.name)?.reason ?? 'not loaded'
        out.push(
          result(
            'plugins',
            step.name,
            'warn',
            `${step.packageName}: ${reason}; pipelines list the step and skip it until it is installed (npm install ${step.packageName})`,
          ),
        )
      }
    }
    for (const specifier of input.plugins) {
      try {
        const { plugin } = await registry.load(specifier)
        out.push(
          result(
            'plugins',
            specifier,
            'ok',
            `GOV_PLUGINS entry loads: step ${plugin.name} ${plugin.version}`,
          ),
        )
      } catch (err) {
        out.push(
          result(
            'plugins',
            specifier,
            'fail',
            `GOV_PLUGINS entry: ${messageOf(err)}`,
            codeOf(err) ?? 'GOV_ERR_PLUGIN_INVALID',
          ),
        )
      }
    }
    for (const name of Object.keys(PRESETS)) out.push(await resolvePreset(gateway.url, adminKey, name))
    if (!(input.defaultPreset in PRESETS)) {
      out.push(
        result(
          'presets',
          'GOV_DEFAULT_PRESET',
          'fail',
          `"${input.defaultPreset}" is not a preset; use one of ${Object.keys(PRESETS).join(', ')}`,
          'GOV_ERR_PIPELINE_UNKNOWN_PRESET',
        ),
      )
    }
  } finally {
    await gateway.close()
  }
  return out
}

async function resolvePreset(baseUrl: string, adminKey: string, preset: string): Promise<CheckResult> {
  const res = await fetch(`${baseUrl}/pipelines`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ pipeline_id: `doctor-${preset}`, preset, overrides: {} }),
  })
  const body = (await res.json().catch(() => ({}))) as {
    steps?: StepView[]
    error?: { code?: string; message?: string }
  }
  if (res.status !== 201 || !Array.isArray(body.steps)) {
    const code = body.error?.code
    return result(
      'presets',
      preset,
      'fail',
      `does not resolve: ${body.error?.message ?? `HTTP ${res.status}`}`,
      code,
    )
  }
  const active = body.steps.filter((s) => s.status === 'active').map((s) => s.name)
  const skipped = body.steps.filter((s) => s.status === 'missing').map((s) => s.name)
  const detail = `${active.length} of ${body.steps.length} steps run${skipped.length ? `; skipped (not installed, see the plugins lines): ${skipped.join(', ')}` : ''}`
  return result('presets', preset, skipped.length ? 'warn' : 'ok', detail)
}
