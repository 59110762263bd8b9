/** The message bus the invalidator rides on (memory in process, Redis pub/sub scaled out). */
export interface Bus {
  publish(channel: string, message: string): Promise<void>
  subscribe(channel: string, handler: (message: string) => void): Promise<void>
}

type Kind = 'agent' | 'pipeline'
const CHANNEL = 'gov:invalidate'

/**
 * Tells every replica to drop a cached agent or pipeline. Handlers run for
 * local publishes too, so a change is visible on the next call everywhere.
 */
export class Invalidator {
  readonly #handlers = new Map<Kind, ((id: string) => void)[]>()

  constructor(private readonly bus: Bus) {}

  async start(): Promise<void> {
    await this.bus.subscribe(CHANNEL, (message) => {
      const { kind, id } = JSON.parse(message) as { kind: Kind; id: string }
      this.#dispatch(kind, id)
    })
  }

  on(kind: Kind, handler: (id: string) => void): void {
    this.#handlers.set(kind, [...(this.#handlers.get(kind) ?? []), handler])
  }

  async publish(kind: Kind, id: string): Promise<void> {
    // Local first: this replica must not serve the stale entry even for a moment.
    this.#dispatch(kind, id)
    await this.bus.publish(CHANNEL, JSON.stringify({ kind, id }))
  }

  #dispatch(kind: Kind, id: string): void {
    for (const handler of this.#handlers.get(kind) ?? []) handler(id)
  }
}
