import type { ServerResponse } from 'node:http'
import { type Answer, type AnswerScope, type BlockVerdict, type Exchange, GovError } from '@gov/core'
import type { SseOptions, VendorAdapter } from '../adapters/adapter.js'
import { anthropicEvent, renderAnthropicSse } from '../adapters/anthropic-sse.js'
import { isRecord } from '../adapters/json-values.js'
import { renderOpenAiChunk, renderOpenAiSse } from '../adapters/openai-sse.js'
import { renderResponsesSse, responsesEvent } from '../adapters/responses-stream.js'
import type { Chain, ChainStep } from '../chain/chain.js'
import { CallState, type ChainRunner } from '../chain/chain-runner.js'
import type { CallRecord } from './call-record.js'
import { HeldStream } from './held-stream.js'
import { WindowSource } from './windowed-source.js'

/** New answer characters between two checks of the prefix. */
export const DEFAULT_WINDOW_CHARS = 160
/** Characters at the end of a checked prefix that wait for a later window. */
export const DEFAULT_HOLD_CHARS = 64

/** The scope of a step's response hook: the instance's, else the plugin's, else `whole`. */
export function scopeOf(step: ChainStep): AnswerScope {
  return step.instance.answerScope ?? step.plugin.answerScope ?? 'whole'
}

/**
 * Why a streamed call of this chain and request is held back whole although
 * its pipeline asks for windowed release; undefined when windows may be used.
 */
export function heldReason(chain: Chain, exchange: Exchange): string | undefined {
  for (const step of chain.steps) {
    if (step.instance.onBufferedResponse && scopeOf(step) === 'whole')
      return `step ${step.name} judges the whole answer`
  }
  const body = exchange.bodyView ?? exchange.body
  const format = (value: unknown) => (isRecord(value) ? value.type : undefined)
  const text = isRecord(body.text) ? body.text : {}
  const config = isRecord(body.output_config) ? body.output_config : {}
  for (const type of [
    format(body.response_format),
    format(text.format),
    format(body.output_format),
    format(config.format),
  ]) {
    if (type === 'json_schema' || type === 'json_object') return 'the request asks for structured output'
  }
  if (typeof body.n === 'number' && body.n > 1) return 'the request asks for more than one choice'
  return undefined
}

/** The stream of a streamed call: windowed when the pipeline asks for it and nothing needs the whole answer. */
export function streamFor(
  rec: CallRecord,
  res: ServerResponse,
  runner: ChainRunner,
  keepAliveMs: number,
): HeldStream {
  const settings = rec.pipeline?.content
  const chain = rec.chain
  const exchange = rec.exchange
  if (settings?.stream_release !== 'windowed' || !chain || !exchange || heldReason(chain, exchange))
    return new HeldStream(res, rec.adapter, rec.headers, keepAliveMs)
  return new WindowedStream(res, rec, runner, keepAliveMs, {
    windowChars: settings.stream_window_chars ?? DEFAULT_WINDOW_CHARS,
    holdChars: settings.stream_hold_chars ?? DEFAULT_HOLD_CHARS,
  })
}

/** A call's state as a prefix check sees it: the call's findings and step state copied, nothing written back. */
class ScratchState extends CallState {
  readonly #real: CallState
  readonly #copies = new Map<string, Map<string, unknown>>()

  constructor(real: CallState) {
    super()
    this.#real = real
    this.findings.push(...real.findings)
  }

  override stateOf(step: string): Map<string, unknown> {
    let copy = this.#copies.get(step)
    if (!copy) {
      copy = new Map(this.#real.stateOf(step))
      this.#copies.set(step, copy)
    }
    return copy
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 13
}

/** The first text part of a complete answer body, where windowed release puts its text. */
function firstText(adapter: VendorAdapter, body: Record<string, unknown>): string | undefined {
  const first = (list: unknown) => (Array.isArray(list) && isRecord(list[0]) ? list[0] : undefined)
  if (adapter.vendor === 'anthropic') {
    const block = first(body.content)
    return block?.type === 'text' && typeof block.text === 'string' ? block.text : undefined
  }
  if (adapter.vendor === 'openai-responses') {
    const item = first(body.output)
    const part = item?.type === 'message' ? first(item.content) : undefined
    return part?.type === 'output_text' && typeof part.text === 'string' ? part.text : undefined
  }
  const choices = Array.isArray(body.choices) ? body.choices : []
  const message = choices.length === 1 && isRecord(choices[0]) ? choices[0].message : undefined
  return isRecord(message) && typeof message.content === 'string' ? message.content : undefined
}

function answerText(answer: Answer): string {
  let text = ''
  for (const part of answer.message.parts) if (part.kind === 'text') text += part.text
  return text
}

/**
 * Windowed release of a streamed answer (pipeline `content.stream_release:
 * windowed`). While the upstream stream arrives, every `windowChars` new
 * characters (or a quarter of the prefix checked so far, when more) the response hooks of the chain (all `prefix` steps; `record`
 * steps wait for the whole) run on the text so far, over a scratch copy of the
 * call's findings and step state; the governed prefix they leave, minus the
 * last `holdChars` characters and cut back to a whitespace, is released as
 * text deltas. So no byte leaves before every check that applies to it passed
 * on everything up to it, and a placeholder or secret split over a window
 * boundary is still held back when it is checked.
 *
 * The whole answer is then governed exactly as in held mode (outcome hooks,
 * response and tool-call hooks on the complete answer, token, audit record);
 * its first text must begin with what was released, and the rest of the
 * answer follows. When a prefix check blocks, the stream ends at once with
 * the vendor's in-stream error event; when a later check (or the final
 * answer) would change text that already left, the stream ends with the error
 * `stream_window_changed` instead of sending the change.
 */
export class WindowedStream extends HeldStream {
  readonly #rec: CallRecord
  readonly #runner: ChainRunner
  readonly #options: { windowChars: number; holdChars: number }
  readonly #source: WindowSource
  readonly #sse: SseOptions
  #sinkGiven = false
  /** Text that left, the start of the answer's first text part. */
  #released = ''
  #checked = 0
  #queued = false
  #work: Promise<void> = Promise.resolve()
  /** No more windows: the answer is being finished or failed, or windows stopped. */
  #frozen = false
  /** The stream was ended with an error event. */
  #ended = false
  #sequence = 0
  /** A prefix check's block that already ended the stream. */
  #blocked: BlockVerdict | undefined

  constructor(
    res: ServerResponse,
    rec: CallRecord,
    runner: ChainRunner,
    keepAliveMs: number,
    options: { windowChars: number; holdChars: number },
  ) {
    super(res, rec.adapter, rec.headers, keepAliveMs)
    this.#rec = rec
    this.#runner = runner
    this.#options = options
    this.#source = new WindowSource(rec.adapter.vendor)
    this.#sse = rec.adapter.sseOptions(rec.exchange as Exchange)
  }

  /** Characters released before the whole answer was governed (for tests and logs). */
  get released(): string {
    return this.#released
  }

  /** The first upstream call only: a retry's answer is governed whole and must match what left. */
  override upstreamSink(): ((chunk: Buffer) => void) | undefined {
    if (this.#sinkGiven) return undefined
    this.#sinkGiven = true
    return (chunk) => {
      try {
        this.#source.feed(chunk)
        if (this.#frozen || !this.#source.windowable) return
        // Each check reads the whole prefix: windows grow with it (a quarter of what was checked), so a
        // long answer costs a few times one check of the whole, not one check per window of the whole.
        const window = Math.max(this.#options.windowChars, this.#checked >> 2)
        if (this.#source.text.length - this.#checked >= window) this.#schedule()
      } catch {
        this.#frozen = true
      }
    }
  }

  override stop(): void {
    super.stop()
    this.#frozen = true
  }

  /**
   * No more windows; once the one in flight is done, the governed whole answer
   * must begin with the released text. Throws (so the call is recorded as it
   * ends for the client) when a window's block already ended the stream, or
   * when the answer would change text that left.
   */
  override async settle(body: Record<string, unknown> | undefined): Promise<void> {
    this.#frozen = true
    await this.#work.catch(() => {})
    const blocked = this.#blocked
    if (blocked) throw new GovError(blocked.code, blocked.reason, blocked.status ?? 403)
    if (!this.#released || !body) return
    const text = firstText(this.adapter, body)
    if (text === undefined || !text.startsWith(this.#released)) {
      throw new GovError(
        'stream_window_changed',
        'a check changed answer text that was already released; the stream is ended (stream_release: windowed)',
        500,
      )
    }
  }

  override finish(sse: string, headers: Record<string, string>): void {
    this.#frozen = true
    this.#work = this.#work.then(() => {
      if (this.#ended) return
      // Only keep-alives left so far: the whole answer goes as in held mode.
      if (!this.#released) return super.finish(sse, headers)
      const body = this.#rec.answerBody as Record<string, unknown>
      const text = firstText(this.adapter, body)
      if (text === undefined || !text.startsWith(this.#released)) {
        this.#changed()
        return
      }
      const resume = { text: this.#released, sequence: this.#sequence }
      let rest: string
      if (this.adapter.vendor === 'anthropic') rest = renderAnthropicSse(body, resume)
      else if (this.adapter.vendor === 'openai-responses') rest = renderResponsesSse(body, resume)
      else rest = renderOpenAiSse(body, this.#sse, resume)
      super.finish(rest, headers)
    })
    this.#work.catch(() => this.fail(500, 'internal_error', 'the stream could not be finished'))
  }

  override fail(status: number, code: string, message: string): void {
    this.#frozen = true
    this.#ended = true
    super.fail(status, code, message)
  }

  protected override nextSequence(): number {
    return this.#sequence++
  }

  #changed(): void {
    this.fail(
      500,
      'stream_window_changed',
      'a check changed answer text that was already released; the stream is ended (stream_release: windowed)',
    )
  }

  #schedule(): void {
    if (this.#queued) return
    this.#queued = true
    this.#work = this.#work.then(async () => {
      this.#queued = false
      await this.#window()
    })
    this.#work.catch(() => {
      this.#frozen = true
    })
  }

  /** Check the prefix received so far and release its stable part. */
  async #window(): Promise<void> {
    if (this.#frozen || !this.#source.windowable) return
    const rec = this.#rec
    const exchange = rec.exchange as Exchange
    const text = this.#source.text
    this.#checked = text.length
    const answer = rec.adapter.parseAnswer(rec.adapter.buildTextAnswer(text, exchange), exchange)
    // `record` steps run once, on the whole answer; `whole` steps never get here (heldReason).
    const steps = (rec.chain as Chain).steps.filter(
      (s) => s.instance.onBufferedResponse && scopeOf(s) === 'prefix',
    )
    const verdict = await this.#runner.run(
      { steps } as unknown as Chain,
      'response',
      rec.call as NonNullable<CallRecord['call']>,
      exchange,
      new ScratchState(rec.state),
      answer,
    )
    if (this.#frozen) return
    if (verdict.kind === 'block') {
      // Nothing left yet: the whole answer is refused as in held mode.
      this.#frozen = true
      if (this.open) {
        this.#blocked = verdict
        this.fail(verdict.status ?? 403, verdict.code, verdict.reason)
      }
      return
    }
    if (verdict.kind !== 'continue') {
      // A retry or a ready answer replaces the text: the rest waits for the whole answer.
      this.#frozen = true
      return
    }
    const governed = rec.call?.mode === 'observe' ? text : answerText(answer)
    if (!governed.startsWith(this.#released)) {
      this.#changed()
      return
    }
    let end = governed.length - this.#options.holdChars
    while (end > this.#released.length && !isSpace(governed.charCodeAt(end))) end--
    if (end <= this.#released.length) return
    this.#release(governed.slice(this.#released.length, end))
  }

  #release(text: string): void {
    if (this.res.writableEnded || this.res.destroyed) {
      this.#frozen = true
      return
    }
    const first = !this.#released
    const head = this.#source.head ?? {}
    let out = ''
    if (first) {
      this.openStream()
      out += this.#opening(head)
    }
    if (this.adapter.vendor === 'anthropic') {
      out += anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
    } else if (this.adapter.vendor === 'openai-responses') {
      out += responsesEvent('response.output_text.delta', this.#sequence++, {
        item_id: this.#source.itemId,
        output_index: 0,
        content_index: 0,
        delta: text,
        logprobs: [],
      })
    } else out += renderOpenAiChunk(head, this.#sse, { content: text })
    this.#released += text
    this.res.write(out)
  }

  /** The events before the first text delta, as the vendor sends them. */
  #opening(head: Record<string, unknown>): string {
    if (this.adapter.vendor === 'anthropic') {
      return (
        anthropicEvent('message_start', {
          message: { ...head, content: [], stop_reason: null, stop_sequence: null },
        }) +
        anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
        anthropicEvent('ping', {})
      )
    }
    if (this.adapter.vendor === 'openai-responses') {
      const response = { ...head, status: 'in_progress', output: [] }
      const itemId = this.#source.itemId
      return (
        responsesEvent('response.created', this.#sequence++, { response }) +
        responsesEvent('response.in_progress', this.#sequence++, { response }) +
        responsesEvent('response.output_item.added', this.#sequence++, {
          output_index: 0,
          item: { id: itemId, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
        }) +
        responsesEvent('response.content_part.added', this.#sequence++, {
          item_id: itemId,
          output_index: 0,
          content_index: 0,
          part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
        })
      )
    }
    return renderOpenAiChunk(head, this.#sse, { role: 'assistant', content: '', refusal: null })
  }
}
