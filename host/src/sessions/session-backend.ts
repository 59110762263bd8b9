/**
 * Storage of per-session state: one hash per (step, agent, session) whose
 * fields all expire together, `ttlMs` after the last operation on it (a
 * sliding TTL). In process it is an LRU of maps; scaled out one Redis hash,
 * each operation a MULTI of the command and its PEXPIRE.
 */
export interface SessionBackend {
  // A `ttlMs` of undefined reads without renewing the TTL (an admin looking at a session).
  get(key: string, field: string, ttlMs: number | undefined): Promise<string | undefined>
  getMany(key: string, fields: readonly string[], ttlMs: number | undefined): Promise<(string | undefined)[]>
  set(key: string, field: string, value: string, ttlMs: number | undefined): Promise<void>
  setIfAbsent(key: string, field: string, value: string, ttlMs: number | undefined): Promise<boolean>
  incr(key: string, field: string, by: number, ttlMs: number | undefined): Promise<number>
  entries(key: string, ttlMs: number | undefined): Promise<Record<string, string>>
  del(key: string, field: string, ttlMs: number | undefined): Promise<void>
  /** Remove the whole hash. */
  clear(key: string): Promise<void>
}
