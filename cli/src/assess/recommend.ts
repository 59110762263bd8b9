import type { Answers, DataKind } from './answers.js'

/** The presets an assessment picks from (the host's preset names). */
export type PresetName = 'observe' | 'standard' | 'strict'

/** A decision and the reason written next to it in the file. */
export interface Choice<T> {
  readonly value: T
  readonly why: string
}

/**
 * Step settings an assessment may write. Only settings whose name and values
 * are known to the steps, so an assessed file always validates on import.
 */
export interface AssessedOverrides {
  detect_injection?: { tool_result_threshold: Choice<number>; threshold?: Choice<number> }
  detect_pii?: { action: Choice<'allow' | 'mask' | 'block'> }
  scan_secrets?: { action: Choice<'redact' | 'block' | 'allow'> }
}

/** What an assessment recommends. */
export interface Recommendation {
  readonly preset: Choice<PresetName>
  readonly overrides: AssessedOverrides
  /** Advice the file cannot express as settings (printed and written as comments). */
  readonly notes: readonly string[]
}

/**
 * Injection thresholds written for agents that read untrusted content. Text an
 * agent fetches (tool results) is where indirect injection arrives, and nobody
 * reviews it before the model does: detect_injection's own eval shows 0.5 on
 * tool results raising indirect recall from 68% to 86% on the dev data. When a
 * tool can also carry data out, direct prompts get 0.6, which kept the same
 * false-positive rate as the 0.7 default there.
 */
export const UNTRUSTED_INPUT_THRESHOLD = 0.5
export const UNTRUSTED_INPUT_EXFIL_THRESHOLD = 0.6

const SENSITIVE: readonly DataKind[] = ['pii', 'financial', 'health', 'credentials', 'source_code']

function choosePreset(a: Answers): Choice<PresetName> {
  const sensitive = a.data.filter((d) => SENSITIVE.includes(d))
  const exfil = a.tools === 'external'
  const strictRegs = a.regulated.filter((r) => r === 'hipaa' || r === 'pci')
  if (strictRegs.length) {
    return {
      value: 'strict',
      why: `${strictRegs.map((r) => r.toUpperCase()).join(' and ')} data: regulated data must not reach the provider by mistake, so detection is tighter`,
    }
  }
  if (a.data.includes('health')) {
    return { value: 'strict', why: 'health data is special-category personal data, so detection is tighter' }
  }
  if (exfil && a.data.includes('credentials')) {
    return {
      value: 'strict',
      why: 'the agent sees credentials and has tools that can send data out: a leaked secret cannot be taken back',
    }
  }
  if (exfil && a.untrustedInput && sensitive.length) {
    return {
      value: 'strict',
      why: `the agent reads untrusted content, holds ${sensitive.join('/')} data and can send data out: one injected instruction is enough to leak it`,
    }
  }
  const lowRisk =
    !sensitive.length &&
    (a.tools === 'none' || a.tools === 'read') &&
    !a.untrustedInput &&
    a.users === 'internal'
  if (lowRisk && !a.regulated.length) {
    return {
      value: 'observe',
      why: 'public data only, no tool that changes or sends anything, no untrusted input, internal users: nothing needs blocking yet; observe records every decision so you can tighten with evidence',
    }
  }
  const reasons = [
    sensitive.length ? `it handles ${sensitive.join('/')} data` : '',
    a.regulated.includes('gdpr') ? 'GDPR applies' : '',
    a.users === 'external' ? 'external users talk to it' : '',
    a.untrustedInput ? 'it reads untrusted content' : '',
    a.tools === 'write' || a.tools === 'external'
      ? `its tools can ${a.tools === 'write' ? 'change things' : 'send data out'}`
      : '',
  ].filter(Boolean)
  return { value: 'standard', why: `enforce the defaults because ${reasons.join(', ')}` }
}

function chooseOverrides(a: Answers, preset: PresetName): AssessedOverrides {
  const out: AssessedOverrides = {}
  if (a.untrustedInput) {
    const exfil = a.tools === 'external'
    out.detect_injection = {
      tool_result_threshold: {
        value: UNTRUSTED_INPUT_THRESHOLD,
        why: 'untrusted content is where indirect injection arrives: flag weaker signals in tool results than the default 0.7',
      },
      ...(exfil
        ? {
            threshold: {
              value: UNTRUSTED_INPUT_EXFIL_THRESHOLD,
              why: 'tools that send data out make one injected instruction enough to leak data: flag weaker signals in prompts too',
            },
          }
        : {}),
    }
  }
  // In observe mode nothing is blocked or changed, so actions would only mislead the reader.
  if (preset === 'observe') return out
  const pii = choosePiiAction(a, preset)
  if (pii) out.detect_pii = { action: pii }
  out.scan_secrets = { action: chooseSecretsAction(a, preset) }
  return out
}

function choosePiiAction(a: Answers, preset: PresetName): Choice<'mask' | 'block'> | undefined {
  const strictRegs = a.regulated.filter((r) => r === 'hipaa' || r === 'pci')
  if (strictRegs.length || a.data.includes('health')) {
    const what = strictRegs.length ? strictRegs.map((r) => r.toUpperCase()).join('/') : 'health data'
    return {
      value: 'block',
      why: `${what}: a call carrying personal data is refused rather than masked, because one missed format would leave unmasked`,
    }
  }
  if (
    a.data.includes('pii') ||
    a.data.includes('financial') ||
    a.regulated.includes('gdpr') ||
    a.users === 'external'
  ) {
    const reason = a.regulated.includes('gdpr')
      ? 'GDPR data minimisation: personal data is replaced by placeholders before it leaves and restored in the answer'
      : 'personal data is replaced by placeholders before it leaves and restored in the answer'
    return {
      value: 'mask',
      why:
        preset === 'strict'
          ? `${reason}; its normal work involves personal data, so blocking would refuse that work`
          : reason,
    }
  }
  if (preset === 'strict') {
    return {
      value: 'block',
      why: 'no personal data is expected here, so a call that carries some is refused',
    }
  }
  return undefined
}

function chooseSecretsAction(a: Answers, preset: PresetName): Choice<'redact' | 'block'> {
  if (a.data.includes('credentials')) {
    return {
      value: 'redact',
      why: 'its work involves credentials: they are redacted so calls still work and the model never sees them',
    }
  }
  if (preset === 'strict') {
    return {
      value: 'block',
      why: 'strict preset: a call carrying a secret is refused, so the caller learns and fixes it',
    }
  }
  return { value: 'redact', why: 'a model never needs a secret; redacting it keeps the call working' }
}

function chooseNotes(a: Answers, preset: PresetName): string[] {
  const notes: string[] = []
  if (a.tools === 'write' || a.tools === 'external') {
    notes.push(
      `filter_tools runs in every preset; give it the list of tools this agent really needs (see the filter_tools README) — its tools can ${a.tools === 'external' ? 'send data out' : 'change things'}`,
    )
  }
  if (a.tools === 'external' && preset !== 'observe') {
    notes.push(
      'track_taint stops a session that has seen sensitive or untrusted data from calling tools that send data out',
    )
  }
  if (a.regulated.includes('hipaa')) {
    notes.push(
      'HIPAA: use a provider that has signed a BAA with you; gov blocks PHI it detects, it does not make a provider compliant',
    )
  }
  if (a.regulated.includes('pci')) {
    notes.push(
      'PCI DSS: card numbers are blocked; keep the gateway and its logs inside your cardholder-data environment scope review',
    )
  }
  if (preset === 'observe') {
    notes.push(
      'observe blocks nothing: read the audit trail after a week and re-run gov assess when the agent gets data or tools',
    )
  }
  return notes
}

/** Choose a preset, step settings and advice from the answers. Pure: same answers, same file. */
export function recommend(answers: Answers): Recommendation {
  const preset = choosePreset(answers)
  return {
    preset,
    overrides: chooseOverrides(answers, preset.value),
    notes: chooseNotes(answers, preset.value),
  }
}
