/**
 * The scaled-out key-value store: Redis, shared by every gateway replica. Each
 * operation is a single atomic command (SET … NX PX for `setIfAbsent`, a Lua
 * script for `incr`). Keys carry a prefix so gov can share a Redis with others.
 */
import type { KeyValueStore } from '@gov/core'
import type { Redis } from 'ioredis'
import { INCR_SCRIPT } from './incr-script.js'
import { KvErrorCodes, notANumberError, unavailableError } from './kv-errors.js'
import { toTtl } from './memory-kv.js'

/** The client with gov's script registered (see `defineCommand`). */
interface ScriptedRedis extends Redis {
  govIncr(key: string, by: string, ttlMs: string): Promise<string>
  govGetOrLock(readKey: string, lockKey: string, value: string, ttlMs: string): Promise<[number, string?]>
}

/**
 * One round trip for a single flight's join: the kept result when there is
 * one, else `SET lock value NX [PX ttl]`. KEYS[1] the key read · KEYS[2] the
 * lock · ARGV[1] the lock's value · ARGV[2] TTL in ms (0: none). Returns
 * `{1, value}` (found), `{2}` (locked by this call) or `{3}` (held by another).
 */
const GET_OR_LOCK_SCRIPT = `
local found = redis.call('GET', KEYS[1])
if found then return {1, found} end
local set
if tonumber(ARGV[2]) > 0 then
  set = redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX')
else
  set = redis.call('SET', KEYS[2], ARGV[1], 'NX')
end
if set then return {2} end
return {3}
`

/** What {@link RedisKv.getOrLock} found: the value of the key read, or whether this call took the lock. */
export type GetOrLock = { readonly found: string } | { readonly found?: undefined; readonly locked: boolean }

/** A {@link KeyValueStore} over Redis. The client is shared, not owned: closing it is the caller's job. */
export class RedisKv implements KeyValueStore {
  readonly #redis: ScriptedRedis
  readonly #prefix: string
  readonly #connectionError: () => Error | undefined

  /**
   * @param redis a client; its own `keyPrefix` should be unset, this class prefixes keys itself
   * @param prefix put before every key, e.g. `gov:`
   * @param connectionError the last connection error, to say why a command failed
   */
  constructor(redis: Redis, prefix = 'gov:', connectionError: () => Error | undefined = () => undefined) {
    this.#connectionError = connectionError
    // EVALSHA with a fallback to EVAL: the script body is sent once per connection.
    redis.defineCommand('govIncr', { numberOfKeys: 1, lua: INCR_SCRIPT })
    redis.defineCommand('govGetOrLock', { numberOfKeys: 2, lua: GET_OR_LOCK_SCRIPT })
    this.#redis = redis as ScriptedRedis
    this.#prefix = prefix
  }

  async get(key: string): Promise<string | undefined> {
    const value = await this.#run('get', () => this.#redis.get(this.#prefix + key))
    return value ?? undefined
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    const ttl = toTtl(ttlMs)
    await this.#run('set', () =>
      ttl
        ? this.#redis.set(this.#prefix + key, value, 'PX', ttl)
        : this.#redis.set(this.#prefix + key, value),
    )
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const ttl = toTtl(ttlMs)
    const reply = await this.#run('setIfAbsent', () =>
      ttl
        ? this.#redis.set(this.#prefix + key, value, 'PX', ttl, 'NX')
        : this.#redis.set(this.#prefix + key, value, 'NX'),
    )
    return reply === 'OK'
  }

  async incr(key: string, by = 1, ttlMs?: number): Promise<number> {
    try {
      const reply = await this.#redis.govIncr(this.#prefix + key, String(by), String(toTtl(ttlMs)))
      return Number(reply)
    } catch (error) {
      if (error instanceof Error && error.message.includes(KvErrorCodes.NOT_A_NUMBER))
        throw notANumberError(key)
      throw unavailableError('incr', error, this.#connectionError())
    }
  }

  /**
   * `get(readKey)`, and when it finds nothing `setIfAbsent(lockKey, value, ttlMs)`,
   * as one script: one round trip instead of two (a single flight's join).
   */
  async getOrLock(readKey: string, lockKey: string, value: string, ttlMs?: number): Promise<GetOrLock> {
    const [kind, found] = await this.#run('getOrLock', () =>
      this.#redis.govGetOrLock(this.#prefix + readKey, this.#prefix + lockKey, value, String(toTtl(ttlMs))),
    )
    if (kind === 1) return { found: found as string }
    return { locked: kind === 2 }
  }

  async del(key: string): Promise<void> {
    await this.#run('del', () => this.#redis.del(this.#prefix + key))
  }

  /** Run one command; any failure becomes a coded `GOV_ERR_KV_UNAVAILABLE`. */
  async #run<T>(operation: string, command: () => Promise<T>): Promise<T> {
    try {
      return await command()
    } catch (error) {
      throw unavailableError(operation, error, this.#connectionError())
    }
  }
}
