/**
 * A small publish/subscribe bus. The host uses it to tell every replica to drop
 * a cached pipeline or agent. In process it is an EventEmitter; scaled out it is
 * Redis pub/sub, on a connection of its own (a subscribed Redis connection can
 * run no other command). Delivery is at most once: a replica that is
 * disconnected when a message is published misses it, so caches fed by the bus
 * should also expire on their own, and drop everything on `onReconnect`.
 */
import { EventEmitter } from 'node:events'
import type { Redis } from 'ioredis'
import { busClosedError, unavailableError } from './kv-errors.js'

/** Receives the messages of one channel. */
export type MessageHandler = (message: string) => void

/** Publish/subscribe across every gateway replica; publishers receive their own messages too. */
export interface EventBus {
  publish(channel: string, message: string): Promise<void>
  /** Call `handler` for every later message on `channel`. Resolves once the subscription is active. */
  subscribe(channel: string, handler: MessageHandler): Promise<void>
  /**
   * Call `listener` each time the subscription is back after a disconnection:
   * messages published meanwhile were missed. Buses that cannot disconnect never call it.
   */
  onReconnect?(listener: () => void): void
  close(): Promise<void>
}

/** Told when a handler throws; the other handlers still run. */
export type HandlerErrorListener = (error: unknown, channel: string) => void

/** The in-process bus. Delivery is asynchronous, as with Redis, so a publisher never re-enters itself. */
export class MemoryEventBus implements EventBus {
  readonly #emitter = new EventEmitter()
  #closed = false

  constructor(private readonly onHandlerError: HandlerErrorListener = () => {}) {
    this.#emitter.setMaxListeners(0)
  }

  async publish(channel: string, message: string): Promise<void> {
    if (this.#closed) throw busClosedError()
    setImmediate(() => this.#emitter.emit(channel, message))
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    if (this.#closed) throw busClosedError()
    this.#emitter.on(channel, (message: string) => deliver(handler, message, channel, this.onHandlerError))
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#emitter.removeAllListeners()
  }
}

/**
 * The Redis bus. Channels carry the same prefix as keys, so two gov
 * deployments on one Redis do not hear each other.
 */
export class RedisEventBus implements EventBus {
  readonly #handlers = new Map<string, MessageHandler[]>()
  readonly #reconnectListeners: (() => void)[] = []
  #closed = false
  /** The subscriber was ready once: a later 'ready' is a reconnection. */
  #connectedOnce = false

  /**
   * @param publisher a shared command connection (not owned)
   * @param subscriber a connection used for nothing else (owned: `close()` ends it)
   * @param prefix put before every channel name
   */
  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly prefix = 'gov:',
    private readonly onHandlerError: HandlerErrorListener = () => {},
    /** The last connection error, to say why a subscription failed. */
    private readonly connectionError: () => Error | undefined = () => undefined,
  ) {
    subscriber.on('ready', () => {
      if (this.#connectedOnce && !this.#closed) {
        for (const listener of this.#reconnectListeners)
          deliver(listener, '', 'reconnect', this.onHandlerError)
      }
      this.#connectedOnce = true
    })
    subscriber.on('message', (prefixed: string, message: string) => {
      const channel = prefixed.slice(this.prefix.length)
      for (const handler of this.#handlers.get(channel) ?? []) {
        deliver(handler, message, channel, this.onHandlerError)
      }
    })
  }

  async publish(channel: string, message: string): Promise<void> {
    if (this.#closed) throw busClosedError()
    try {
      await this.publisher.publish(this.prefix + channel, message)
    } catch (error) {
      throw unavailableError('publish', error, this.connectionError())
    }
  }

  async subscribe(channel: string, handler: MessageHandler): Promise<void> {
    if (this.#closed) throw busClosedError()
    const handlers = this.#handlers.get(channel)
    if (handlers) {
      handlers.push(handler)
      return
    }
    this.#handlers.set(channel, [handler])
    try {
      // ioredis subscribes again by itself after a reconnect.
      await this.subscriber.subscribe(this.prefix + channel)
    } catch (error) {
      this.#handlers.delete(channel)
      throw unavailableError('subscribe', error, this.connectionError())
    }
  }

  onReconnect(listener: () => void): void {
    this.#reconnectListeners.push(listener)
  }

  /** True when the subscriber connection is up, or when nothing was subscribed yet (it connects lazily). */
  get listening(): boolean {
    return this.#handlers.size === 0 || this.subscriber.status === 'ready'
  }

  async close(): Promise<void> {
    this.#closed = true
    this.#handlers.clear()
    await endConnection(this.subscriber)
  }
}

/** Run one handler; its failure must not stop the others or the connection's event loop. */
function deliver(handler: MessageHandler, message: string, channel: string, onError: HandlerErrorListener) {
  try {
    handler(message)
  } catch (error) {
    onError(error, channel)
  }
}

/** QUIT a connected client (flushes pending replies); just drop one that is not connected. */
export async function endConnection(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit()
      return
    } catch {
      // fall through: the connection broke while quitting
    }
  }
  redis.disconnect()
}
