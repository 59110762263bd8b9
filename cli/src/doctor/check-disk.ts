import { measureDisk, readMonitorSettings } from '@gov/host'
import { type CheckResult, codeOf, messageOf, result } from './check-result.js'

/** The spec's disk alert threshold, the same the health monitor uses. */
const DISK_THRESHOLD = 0.9

/** Disk use of the paths the health monitor watches (`GOV_MONITOR_DISK_PATHS`, `/`, `GOV_DATA_DIR`). */
export async function checkDisk(env: NodeJS.ProcessEnv): Promise<CheckResult[]> {
  let paths: string[]
  try {
    paths = readMonitorSettings(env).diskPaths
  } catch (err) {
    return [result('disk', 'GOV_MONITOR_*', 'fail', messageOf(err), codeOf(err))]
  }
  return Promise.all(
    paths.map(async (path) => {
      try {
        const usage = await measureDisk(path)
        const pct = Math.round(usage.usedRatio * 100)
        const free = `${(usage.availableBytes / 2 ** 30).toFixed(1)} GiB free`
        return usage.usedRatio > DISK_THRESHOLD
          ? result(
              'disk',
              path,
              'warn',
              `${pct} % used (${free}), above 90 %: free space or grow the volume before the database or logs stop writing`,
              'GOV_ERR_DOCTOR_DISK_FULL',
            )
          : result('disk', path, 'ok', `${pct} % used (${free})`)
      } catch (err) {
        // A data folder that does not exist yet is created at start; its absence is not a disk problem.
        return codeOf(err) === 'ENOENT'
          ? result('disk', path, 'ok', 'does not exist yet (created at start)')
          : result('disk', path, 'warn', `cannot be measured: ${messageOf(err)}`, codeOf(err))
      }
    }),
  )
}
