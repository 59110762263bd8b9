import type {
  RequestContext,
  StepCounter,
  StepInstance,
  StepServices,
  ToolCallContext,
  Verdict,
} from '@gov/core'
import { Verdicts } from '@gov/core'
import { ArgumentRules, type ArgumentViolation } from './argument-rules.js'
import { TOOL_DEFINITION_CHANGED, TOOL_NOT_ALLOWED } from './errors.js'
import type { FilterToolsSettings } from './settings.js'
import { compileGlobs, type NameMatcher } from './tool-globs.js'
import { ToolPins } from './tool-pins.js'

/** Decisions counted in `gov_tool_filter_decisions_total{decision}`. */
type Decision =
  | 'tool_removed'
  | 'tool_choice_refused'
  | 'call_refused'
  | 'call_dropped'
  | 'definition_pinned'
  | 'definition_changed'

/**
 * One configured filter_tools step. Request phase: removes the tools the
 * pipeline does not allow from what the model is offered (so the capability
 * token grants only what remains), refuses a `tool_choice` forcing a removed
 * tool, and pins tool definitions per agent. Tool-call phase: refuses (or
 * drops) a call to a tool not allowed or whose arguments fail their rule.
 */
export class FilterToolsStep implements StepInstance {
  readonly #settings: FilterToolsSettings
  readonly #allowed: NameMatcher
  readonly #denied: NameMatcher
  readonly #rules: ArgumentRules
  readonly #pins: ToolPins | undefined
  readonly #decisions: StepCounter
  /**
   * Decisions by tool name: a pipeline sees few distinct names, and glob matching costs ~2 µs a
   * glob set. A plain map, emptied when full, is cheaper per lookup than an LRU.
   */
  readonly #allowedNames = new Map<string, boolean>()

  constructor(settings: FilterToolsSettings, services: StepServices) {
    this.#settings = settings
    this.#allowed = compileGlobs(settings.allow, 'allow')
    this.#denied = compileGlobs(settings.deny, 'deny')
    this.#rules = new ArgumentRules(settings.argument_rules)
    this.#pins = settings.pin ? new ToolPins(services.kv, settings.pin_ttl_s * 1000) : undefined
    this.#decisions = services.metrics.counter(
      'gov_tool_filter_decisions_total',
      'Decisions of the filter_tools step: tools removed, calls refused or dropped, definitions pinned or changed',
      ['decision'],
    )
  }

  /** True when the pipeline lets the model be offered and call `name`: an allow glob matches and no deny glob. */
  isAllowed(name: string): boolean {
    let allowed = this.#allowedNames.get(name)
    if (allowed === undefined) {
      allowed = this.#allowed(name) && !this.#denied(name)
      if (this.#allowedNames.size >= 2_000) this.#allowedNames.clear()
      this.#allowedNames.set(name, allowed)
    }
    return allowed
  }

  async onRequest(ctx: RequestContext): Promise<Verdict> {
    const exchange = ctx.exchange
    if (exchange.tools.length === 0 && exchange.toolChoice?.mode !== 'tool') return Verdicts.continue()
    // Observe mode changes nothing: it reports what enforce would remove.
    const removed =
      ctx.call.mode === 'enforce'
        ? exchange.narrowTools((tool) => this.isAllowed(tool.name))
        : exchange.tools.filter((tool) => !this.isAllowed(tool.name)).map((tool) => tool.name)
    for (const name of new Set(removed)) {
      this.#note(ctx, 'tool_removed', { tool: name })
    }
    const choice = exchange.toolChoice
    if (choice?.mode === 'tool' && choice.name !== undefined && !this.isAllowed(choice.name)) {
      this.#note(ctx, 'tool_choice_refused', { tool: choice.name })
      return Verdicts.block(
        TOOL_NOT_ALLOWED,
        `tool_choice forces tool '${choice.name}', which is not allowed`,
      )
    }
    if (
      choice?.mode === 'required' &&
      removed.length > 0 &&
      !exchange.tools.some((t) => this.isAllowed(t.name))
    ) {
      this.#note(ctx, 'tool_choice_refused', { tool: null })
      return Verdicts.block(
        TOOL_NOT_ALLOWED,
        'tool_choice requires a tool call, but no offered tool is allowed',
      )
    }
    const offered = exchange.tools.filter((tool) => this.isAllowed(tool.name))
    if (this.#pins && offered.length > 0) {
      const { pinned, changed } = await this.#pins.check(ctx.call.agentId, offered)
      if (pinned.length > 0) this.#decisions.inc({ decision: 'definition_pinned' }, pinned.length)
      for (const name of changed) {
        this.#decisions.inc({ decision: 'definition_changed' })
        ctx.report({
          type: TOOL_DEFINITION_CHANGED,
          score: 1,
          level: 'internal',
          detail: { tool: name, action: this.#settings.on_definition_change },
        })
      }
      if (changed.length > 0 && this.#settings.on_definition_change === 'block') {
        return Verdicts.block(
          TOOL_DEFINITION_CHANGED,
          `the definition of ${changed.map((n) => `'${n}'`).join(', ')} changed since it was first pinned for this agent`,
        )
      }
    }
    return Verdicts.continue()
  }

  onToolCall(ctx: ToolCallContext): Verdict {
    const call = ctx.toolCall
    let violation: ArgumentViolation | undefined
    let reason: string
    if (!this.isAllowed(call.name)) {
      reason = `the model called tool '${call.name}', which is not allowed`
    } else {
      violation = this.#rules.size > 0 ? this.#rules.check(call.name, call.arguments.text) : undefined
      if (!violation) return Verdicts.continue()
      reason =
        violation.keyword === 'not_json'
          ? `the arguments of the call to '${call.name}' are not JSON (rule '${violation.rule}')`
          : `the arguments of the call to '${call.name}' fail rule '${violation.rule}' at ${violation.schemaPath} (${violation.keyword})`
    }
    const drop = this.#settings.on_denied_call === 'drop'
    this.#note(ctx, drop ? 'call_dropped' : 'call_refused', {
      tool: call.name,
      ...(violation
        ? { rule: violation.rule, keyword: violation.keyword, schema_path: violation.schemaPath }
        : {}),
    })
    if (!drop) return Verdicts.block(TOOL_NOT_ALLOWED, reason)
    // In observe mode the answer must stay as the provider sent it.
    if (ctx.call.mode === 'enforce') ctx.answer.removeToolCall(call.id)
    return Verdicts.continue()
  }

  #note(ctx: RequestContext | ToolCallContext, decision: Decision, detail: Record<string, unknown>) {
    this.#decisions.inc({ decision })
    ctx.report({ type: decision, score: 1, level: 'public', detail })
  }
}
