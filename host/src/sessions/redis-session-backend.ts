import type { Redis } from 'ioredis'
import { unavailableError } from '../kv/kv-errors.js'
import type { SessionBackend } from './session-backend.js'

type Reply = [error: Error | null, result: unknown][] | null

/**
 * Per-session state in Redis: one hash per (step, agent, session). Each
 * operation is a MULTI of the hash command and a PEXPIRE of the whole hash, so
 * every field of a session expires together and the TTL slides with use.
 */
export class RedisSessionBackend implements SessionBackend {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'gov:',
  ) {}

  async #run(
    operation: string,
    key: string,
    ttlMs: number | undefined,
    add: (m: ReturnType<Redis['multi']>) => void,
  ) {
    const k = this.prefix + key
    let reply: Reply
    try {
      const multi = this.redis.multi()
      add(multi)
      if (ttlMs !== undefined) multi.pexpire(k, Math.max(1, Math.ceil(ttlMs)))
      reply = await multi.exec()
    } catch (error) {
      throw unavailableError(operation, error)
    }
    const first = reply?.[0]
    if (!first) throw unavailableError(operation, new Error('transaction aborted'))
    if (first[0]) throw unavailableError(operation, first[0])
    return first[1]
  }

  async get(key: string, field: string, ttlMs: number | undefined) {
    const value = await this.#run('hget', key, ttlMs, (m) => m.hget(this.prefix + key, field))
    return (value as string | null) ?? undefined
  }

  async getMany(key: string, fields: readonly string[], ttlMs: number | undefined) {
    if (fields.length === 0) return []
    const values = await this.#run('hmget', key, ttlMs, (m) => m.hmget(this.prefix + key, ...fields))
    return (values as (string | null)[]).map((v) => v ?? undefined)
  }

  async set(key: string, field: string, value: string, ttlMs: number | undefined) {
    await this.#run('hset', key, ttlMs, (m) => m.hset(this.prefix + key, field, value))
  }

  async setIfAbsent(key: string, field: string, value: string, ttlMs: number | undefined) {
    return (await this.#run('hsetnx', key, ttlMs, (m) => m.hsetnx(this.prefix + key, field, value))) === 1
  }

  async incr(key: string, field: string, by: number, ttlMs: number | undefined) {
    const value = await this.#run('hincrbyfloat', key, ttlMs, (m) =>
      m.hincrbyfloat(this.prefix + key, field, by),
    )
    return Number(value)
  }

  async entries(key: string, ttlMs: number | undefined) {
    return (await this.#run('hgetall', key, ttlMs, (m) => m.hgetall(this.prefix + key))) as Record<
      string,
      string
    >
  }

  async del(key: string, field: string, ttlMs: number | undefined) {
    await this.#run('hdel', key, ttlMs, (m) => m.hdel(this.prefix + key, field))
  }

  async clear(key: string) {
    try {
      await this.redis.del(this.prefix + key)
    } catch (error) {
      throw unavailableError('del', error)
    }
  }
}
