import type { Finding } from '@gov/core'
import { makeExchange, makeRequestContext, makeServices } from '@gov/core/testing'
import plugin, { resolveSettings, type ScanSecretsSettings, type ScanSecretsStep } from '../src/index.js'

/** A configured step instance, as the host would build it. */
export async function makeStep(overrides: Partial<ScanSecretsSettings> = {}): Promise<ScanSecretsStep> {
  return (await plugin.create(resolveSettings(overrides), makeServices('scan_secrets'))) as ScanSecretsStep
}

const shared = await makeStep({ action: 'allow' })

/** Findings of the default step (report only) for one user message. */
export function scanText(text: string, step: ScanSecretsStep = shared): readonly Finding[] {
  const ctx = makeRequestContext(makeExchange([{ source: 'user', text }]), { step: 'scan_secrets' })
  step.onRequest(ctx)
  return ctx.findings
}

/** Kinds found in a text, in order. */
export function kindsIn(text: string): string[] {
  return scanText(text).map((f) => f.type)
}
