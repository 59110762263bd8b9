import { Gauge, type Registry } from 'prom-client'
import type { Logger } from '../logging.js'
import { readCertificateExpiry } from '../tls/certificate-expiry.js'
import { measureDisk } from './disk-usage.js'
import type { MonitorSettings } from './monitor-settings.js'

/** The monitor's checks: one alert gauge series each. */
export type MonitorCheck = 'disk' | 'internal_ca' | 'readiness'

/** One finding of a monitor run. */
export interface MonitorFinding {
  check: MonitorCheck
  /** `alert` is logged at error level and sets the gauge to 1. */
  status: 'ok' | 'alert'
  detail: string
}

export interface HealthMonitorOptions {
  settings: MonitorSettings
  logger: Logger
  /** Registry the gauges are registered in (the gateway's `/metrics`). */
  registry: Registry
  /** Readiness as `/health/ready` computes it: true when every dependency is ok. */
  ready: () => Promise<{ ok: boolean; failing: string[] }>
  /** Clock in epoch ms (tests). */
  now?: () => number
}

/**
 * The spec's health monitor, inside each gateway process: every 5 minutes it
 * checks disk use (> 90 % alerts), the internal CA's expiry (< 30 days alerts)
 * and readiness. Alerts go to the log (level error, `alert: true`, so any log
 * pipeline can page on them) and to `gov_monitor_alert{check}` (1 while
 * alerting), so a Prometheus rule can page without parsing logs.
 * `gov_disk_used_ratio{path}` and `gov_internal_ca_expiry_days` carry the
 * measured values.
 */
export class HealthMonitor {
  readonly #alert: Gauge<'check'>
  readonly #disk: Gauge<'path'>
  /** Only with an internal CA configured: an unset gauge would read 0 days and fire expiry alerts. */
  readonly #caDays: Gauge | undefined
  #timer: NodeJS.Timeout | undefined
  #running: Promise<MonitorFinding[]> | undefined
  /** Findings of the last completed run. */
  last: MonitorFinding[] = []

  constructor(private readonly options: HealthMonitorOptions) {
    const registers = [options.registry]
    this.#alert = new Gauge({
      name: 'gov_monitor_alert',
      help: 'Health monitor: 1 while a check (disk, internal_ca, readiness) is alerting, else 0',
      labelNames: ['check'],
      registers,
    })
    this.#disk = new Gauge({
      name: 'gov_disk_used_ratio',
      help: 'Health monitor: share of the file system in use, by watched path',
      labelNames: ['path'],
      registers,
    })
    this.#caDays = options.settings.caFile
      ? new Gauge({
          name: 'gov_internal_ca_expiry_days',
          help: 'Health monitor: whole days until the internal CA certificate expires',
          registers,
        })
      : undefined
  }

  /** Run now, then every interval (nothing when the interval is 0). */
  start(): void {
    if (this.options.settings.intervalMs === 0) return
    void this.run()
    this.#timer = setInterval(() => void this.run(), this.options.settings.intervalMs)
    this.#timer.unref()
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** Wait for a run in progress (close waits so nothing logs after the logger's owner is gone). */
  async idle(): Promise<void> {
    await this.#running
  }

  /** One run of every check; overlapping calls share the run in progress. */
  run(): Promise<MonitorFinding[]> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  async #run(): Promise<MonitorFinding[]> {
    const findings = [...(await this.#checkDisks()), ...(await this.#checkCa()), await this.#checkReady()]
    for (const check of ['disk', 'internal_ca', 'readiness'] as const) {
      const alerting = findings.some((f) => f.check === check && f.status === 'alert')
      this.#alert.set({ check }, alerting ? 1 : 0)
      // Say when an alert clears, so a log reader sees the whole episode.
      if (!alerting && this.last.some((f) => f.check === check && f.status === 'alert')) {
        this.options.logger.info({ alert: false, check }, `${check} alert cleared`)
      }
    }
    for (const f of findings) {
      if (f.status === 'alert') this.options.logger.error({ alert: true, check: f.check }, f.detail)
    }
    this.last = findings
    return findings
  }

  async #checkDisks(): Promise<MonitorFinding[]> {
    const { diskPaths, diskThreshold } = this.options.settings
    return Promise.all(
      diskPaths.map(async (path): Promise<MonitorFinding> => {
        try {
          const usage = await measureDisk(path)
          this.#disk.set({ path }, usage.usedRatio)
          const pct = Math.round(usage.usedRatio * 100)
          return usage.usedRatio > diskThreshold
            ? {
                check: 'disk',
                status: 'alert',
                detail: `disk ${path} is ${pct} % full (alert above ${diskThreshold * 100} %)`,
              }
            : { check: 'disk', status: 'ok', detail: `disk ${path} is ${pct} % full` }
        } catch (err) {
          return {
            check: 'disk',
            status: 'alert',
            detail: `disk ${path} cannot be measured: ${(err as Error).message}`,
          }
        }
      }),
    )
  }

  async #checkCa(): Promise<MonitorFinding[]> {
    const { caFile, caMinDays } = this.options.settings
    if (!caFile) return []
    try {
      const expiry = await readCertificateExpiry(caFile, this.options.now?.() ?? Date.now())
      this.#caDays?.set(expiry.daysLeft)
      const when = new Date(expiry.notAfter).toISOString()
      return [
        expiry.daysLeft < caMinDays
          ? {
              check: 'internal_ca',
              status: 'alert',
              detail: `internal CA ${caFile} expires in ${expiry.daysLeft} days (${when}); renew it (deploy/ca/make-ca.sh) and roll it out`,
            }
          : {
              check: 'internal_ca',
              status: 'ok',
              detail: `internal CA expires in ${expiry.daysLeft} days (${when})`,
            },
      ]
    } catch (err) {
      return [
        {
          check: 'internal_ca',
          status: 'alert',
          detail: `internal CA ${caFile} cannot be read: ${(err as Error).message}`,
        },
      ]
    }
  }

  async #checkReady(): Promise<MonitorFinding> {
    try {
      const { ok, failing } = await this.options.ready()
      return ok
        ? { check: 'readiness', status: 'ok', detail: 'ready' }
        : { check: 'readiness', status: 'alert', detail: `not ready: ${failing.join(', ')}` }
    } catch (err) {
      return {
        check: 'readiness',
        status: 'alert',
        detail: `readiness cannot be checked: ${(err as Error).message}`,
      }
    }
  }
}
