/**
 * Redis test settings: a per-run prefix keeps parallel test files apart on one
 * Redis, and the cleanup removes every key the run wrote.
 */
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'

/** The test Redis URL, or undefined when Redis tests should skip. */
export const TEST_REDIS_URL = process.env.GOV_TEST_REDIS_URL || undefined

/** Skip option for `describe` when no test Redis is configured. */
export const skipWithoutRedis = TEST_REDIS_URL ? false : 'GOV_TEST_REDIS_URL not set'

/** A key and channel prefix unique to this run. */
export function uniquePrefix(label: string): string {
  return `gov-test:${label}:${process.pid}:${randomBytes(3).toString('hex')}:`
}

/** Delete every key under `prefix`. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500)
      if (keys.length) await redis.del(...keys)
      cursor = next
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
}
