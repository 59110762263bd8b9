import { statfs } from 'node:fs/promises'

/** How full the file system holding a path is. */
export interface DiskUsage {
  path: string
  /** Share of the blocks in use, 0–1, counting what only root may use as used (as `df` does). */
  usedRatio: number
  /** Bytes an unprivileged process can still write. */
  availableBytes: number
}

/** Measure the file system holding `path` (shared by the health monitor and `gov doctor`). */
export async function measureDisk(path: string): Promise<DiskUsage> {
  const s = await statfs(path)
  // df's Use%: used / (used + available to non-root); blocks reserved for root are not available to gov (uid 999).
  const used = s.blocks - s.bfree
  const usable = used + s.bavail
  return { path, usedRatio: usable > 0 ? used / usable : 0, availableBytes: s.bavail * s.bsize }
}
