import { createHash } from 'node:crypto'
import type { KeyValueStore, ToolDefinition } from '@gov/core'
import canonicalize from 'canonicalize'
import { LRUCache } from 'lru-cache'

/** What pinning found for the tools of one call. */
export interface PinResult {
  /** Tools seen for the first time for this agent (now pinned). */
  readonly pinned: string[]
  /** Tools whose definition differs from the pinned one. */
  readonly changed: string[]
}

/**
 * SHA-256 of a tool definition in canonical JSON (RFC 8785), so the same
 * definition sent with keys in another order is the same definition.
 */
export function definitionHash(tool: ToolDefinition): string {
  const definition = {
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
  }
  let text: string | undefined
  try {
    text = canonicalize(definition)
  } catch {
    // RFC 8785 refuses lone surrogates; plain JSON escapes them (`\ud800`), still one text per definition.
    text = JSON.stringify(definition)
  }
  return createHash('sha256')
    .update(text ?? '')
    .digest('hex')
}

/**
 * Pins tool definitions per agent in the key-value store: the first definition
 * seen under a name is kept (`setIfAbsent`, so of two concurrent first sights
 * exactly one wins, on any replica), and a later one that differs is reported.
 * The key holds the agent id, so agents never share pins. Definitions this
 * process already confirmed are remembered for a while so the common case
 * (same tools every turn) costs no store round trip.
 */
export class ToolPins {
  readonly #kv: KeyValueStore
  readonly #ttlMs: number
  readonly #confirmed: LRUCache<string, string>
  /** Hash by the definition's plain JSON: agents send the same tools every turn, and canonical JSON costs ~30 µs a tool. */
  readonly #hashes = new LRUCache<string, string>({ max: 5_000 })

  constructor(kv: KeyValueStore, ttlMs: number) {
    this.#kv = kv
    this.#ttlMs = ttlMs
    // Kept well under the pin's lifetime, so a pin that expired in the store is re-read and re-pinned.
    this.#confirmed = new LRUCache({ max: 10_000, ttl: Math.min(ttlMs / 2, 600_000) })
  }

  async check(agentId: string, tools: readonly ToolDefinition[]): Promise<PinResult> {
    // The whole set an agent sends every turn, confirmed at once: one string and one lookup per call.
    const setKey = `${agentId}\u0000${JSON.stringify(tools.map((t) => [t.name, t.description ?? null, t.parameters ?? null]))}`
    if (this.#confirmed.get(setKey) === '') return { pinned: [], changed: [] }
    const pinned: string[] = []
    const changed: string[] = []
    await Promise.all(
      tools.map(async (tool) => {
        // JSON of the name: unique for any string, lone surrogates included (encodeURIComponent throws on them).
        const key = `pin:${encodeURIComponent(agentId)}:${JSON.stringify(tool.name)}`
        const hash = this.#hash(tool)
        if (this.#confirmed.get(key) === hash) return
        // At most two rounds: a pin can expire between `setIfAbsent` and `get`, then this sight is a first one.
        for (let round = 0; round < 2; round++) {
          if (await this.#kv.setIfAbsent(key, hash, this.#ttlMs)) {
            pinned.push(tool.name)
            this.#confirmed.set(key, hash)
            return
          }
          const stored = await this.#kv.get(key)
          if (stored === undefined) continue
          if (stored === hash) this.#confirmed.set(key, hash)
          else changed.push(tool.name)
          return
        }
        changed.push(tool.name)
      }),
    )
    if (changed.length === 0) this.#confirmed.set(setKey, '')
    return { pinned: pinned.sort(), changed: changed.sort() }
  }

  #hash(tool: ToolDefinition): string {
    const raw = JSON.stringify([tool.name, tool.description ?? null, tool.parameters ?? null])
    let hash = this.#hashes.get(raw)
    if (hash === undefined) {
      hash = definitionHash(tool)
      this.#hashes.set(raw, hash)
    }
    return hash
  }
}
