import type { Logger } from '../logging.js'

/** The message bus the invalidator rides on (memory in process, Redis pub/sub scaled out). */
export interface Bus {
  publish(channel: string, message: string): Promise<void>
  subscribe(channel: string, handler: (message: string) => void): Promise<void>
  /** Called each time the bus's subscription comes back after a disconnection (messages may have been missed). */
  onReconnect?(listener: () => void): void
}

/** What a message drops: a cached agent or pipeline (and its chain), a cached secret, or the loaded policy. */
type Kind = 'agent' | 'pipeline' | 'secret' | 'policy'
const KINDS: ReadonlySet<string> = new Set(['agent', 'pipeline', 'secret', 'policy'])
/** `all`: drop every cached entry (a replica's backlog of unsent invalidations overflowed). */
type Message = { kind: Kind; id: string } | { kind: 'all' }

const CHANNEL = 'gov:invalidate'
const RESET = JSON.stringify({ kind: 'all' })

/** Options of {@link Invalidator}. */
export interface InvalidatorOptions {
  logger?: Logger
  /** Pause between attempts to send invalidations the bus refused; default 500 ms. */
  retryMs?: number
  /** Unsent invalidations kept; past it they collapse into one `all`. Default 10 000. */
  maxBacklog?: number
}

/**
 * Tells every replica to drop a cached agent or pipeline. Handlers run for
 * local publishes too, so a change is visible on this replica at once.
 *
 * Publishing never fails the change that caused it: a change is committed and
 * audited before it is published, so when the bus (Redis) is down the message
 * waits in a backlog and is retried until it goes out. Meanwhile the other
 * replicas rely on their caches expiring (agents and pipelines: 5 s), and a
 * replica whose subscription comes back after an outage drops all its cached
 * entries, since it may have missed messages.
 */
export class Invalidator {
  readonly #handlers = new Map<Kind, ((id: string) => void)[]>()
  readonly #resetHandlers: (() => void)[] = []
  readonly #logger: Logger | undefined
  readonly #retryMs: number
  readonly #maxBacklog: number
  /** Unsent messages by their JSON (duplicates collapse). */
  readonly #backlog = new Set<string>()
  #retry: NodeJS.Timeout | undefined
  #flushing: Promise<void> | undefined

  constructor(
    private readonly bus: Bus,
    options: InvalidatorOptions = {},
  ) {
    this.#logger = options.logger
    this.#retryMs = options.retryMs ?? 500
    this.#maxBacklog = options.maxBacklog ?? 10_000
  }

  async start(): Promise<void> {
    await this.bus.subscribe(CHANNEL, (text) => {
      const message = parseMessage(text)
      if (message) this.#dispatch(message)
      else this.#logger?.warn('ignored a malformed invalidation message')
    })
    this.bus.onReconnect?.(() => {
      // Messages published while this replica was cut off are lost to it.
      this.#dispatch({ kind: 'all' })
      void this.flush()
    })
  }

  on(kind: Kind, handler: (id: string) => void): void {
    this.#handlers.set(kind, [...(this.#handlers.get(kind) ?? []), handler])
  }

  /** `handler` drops every cached entry: after an outage, or when a backlog overflowed. */
  onReset(handler: () => void): void {
    this.#resetHandlers.push(handler)
  }

  /** Unsent invalidations waiting for the bus. */
  get backlog(): number {
    return this.#backlog.size
  }

  /**
   * Drop the entry here at once, then tell the other replicas. Never throws:
   * when the bus refuses, the message is kept and retried.
   */
  async publish(kind: Kind, id: string): Promise<void> {
    // Local first: this replica must not serve the stale entry even for a moment.
    this.#dispatch({ kind, id })
    this.#enqueue(JSON.stringify({ kind, id }))
    await this.flush()
  }

  /** Try to send the backlog now; resolves when the attempt ends, sent or not. */
  flush(): Promise<void> {
    this.#flushing ??= this.#send().finally(() => {
      this.#flushing = undefined
    })
    return this.#flushing
  }

  /** Stop retrying (at shutdown); unsent messages are dropped, the other replicas' caches expire by themselves. */
  stop(): void {
    clearTimeout(this.#retry)
    this.#retry = undefined
    this.#backlog.clear()
  }

  #enqueue(message: string): void {
    // A pending reset already covers every entry.
    if (this.#backlog.has(RESET)) return
    if (this.#backlog.size >= this.#maxBacklog && !this.#backlog.has(message)) {
      this.#logger?.warn(
        { dropped: this.#backlog.size },
        'invalidation backlog full: replicas will drop every cached entry',
      )
      this.#backlog.clear()
      this.#backlog.add(RESET)
      return
    }
    this.#backlog.add(message)
  }

  async #send(): Promise<void> {
    clearTimeout(this.#retry)
    this.#retry = undefined
    // Oldest first, until empty: messages added while this runs go out in the same run.
    for (let message = first(this.#backlog); message !== undefined; message = first(this.#backlog)) {
      try {
        await this.bus.publish(CHANNEL, message)
        this.#backlog.delete(message)
      } catch (err) {
        this.#logger?.warn(
          { err: (err as Error).message, backlog: this.#backlog.size },
          'invalidation not sent; retrying',
        )
        this.#retry = setTimeout(() => void this.flush(), this.#retryMs)
        // Retrying must not keep a closing process alive.
        this.#retry.unref()
        return
      }
    }
  }

  #dispatch(message: Message): void {
    if (message.kind === 'all') {
      for (const handler of this.#resetHandlers) handler()
      return
    }
    for (const handler of this.#handlers.get(message.kind) ?? []) handler(message.id)
  }
}

function first(set: Set<string>): string | undefined {
  for (const value of set) return value
  return undefined
}

function parseMessage(text: string): Message | undefined {
  try {
    const value = JSON.parse(text) as { kind?: unknown; id?: unknown }
    if (value.kind === 'all') return { kind: 'all' }
    if (typeof value.kind === 'string' && KINDS.has(value.kind) && typeof value.id === 'string') {
      return { kind: value.kind as Kind, id: value.id }
    }
  } catch {}
  return undefined
}
