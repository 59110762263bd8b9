import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process'

let tasksetWorks: boolean | undefined

/** True when `taskset` exists and this machine has at least two cores to split. */
export function canPin(): boolean {
  if (tasksetWorks === undefined) {
    const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' })
    tasksetWorks = probe.status === 0
  }
  return tasksetWorks
}

/**
 * Spawn `node [nodeFlags] --import reflect-metadata <script> …args`, pinned to `core`
 * with taskset when it works, so the load generator and the servers never
 * compete for the same core.
 */
export function spawnNode(
  script: string,
  args: string[],
  core: number | undefined,
  options: SpawnOptions,
  nodeFlags: readonly string[] = [],
): ChildProcess {
  const node = [process.execPath, ...nodeFlags, '--import', 'reflect-metadata', script, ...args]
  if (core !== undefined && canPin()) return spawn('taskset', ['-c', String(core), ...node], options)
  return spawn(node[0]!, node.slice(1), options)
}
