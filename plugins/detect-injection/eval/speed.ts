/**
 * Cost per KB of the detector on realistic 1 KB texts (uncached), median and
 * p99, for a user prompt and a tool result, then documents of 32 KB to 200 KB
 * on the calling thread, and a 200 KB document through a step instance that
 * analyses it on a worker thread, with the longest event-loop stall each way.
 * Run by hand: `node plugins/detect-injection/dist/eval/speed.js`.
 */
import { performance } from 'node:perf_hooks'
import { makeExchange, makeRequestContext, makeServices, measureEventLoop } from '@gov/core/testing'
import { InjectionDetector } from '../src/detector.js'
import { createInstance } from '../src/instance.js'
import type { Channel } from '../src/match-rules.js'
import { loadDetector } from '../src/model-file.js'

const PROMPT =
  'I am planning a two-week trip through Japan in April with my partner and we would like to see both the big cities and some quieter places in the countryside. ' +
  'We are interested in food, temples, gardens and hiking, and we do not want to spend more than about 150 euros per day for the two of us including hotels. ' +
  'Could you suggest an itinerary that starts in Tokyo and ends in Osaka, with realistic travel times between the stops, and tell us which rail pass makes sense? ' +
  'Please also mention which places tend to be crowded during cherry blossom season, what we should book in advance, and a few local dishes to try in each region. ' +
  'If possible, format the answer as a day-by-day table and add a short packing list at the end. We both speak a little Japanese, so phrases are welcome too. '
const EMAIL =
  'SUBJECT: Your card has been charged $373.52|EMAIL_FROM: Billing <billing@example.com>|RECEIVED DATE: Tue, 22 Feb 2022 21:49:18 +0000|CONTENT:\n\n' +
  'Hi David,\nYour debit card ending 4605 was preauthorized for $373.52. The settled amount may be different from this initial charge and will be withdrawn from your company checking account ending 7681.\n' +
  'If you have any questions, just reply to this email. If this transaction is in error, you can raise a dispute from the dashboard.\n' +
  'You are receiving notifications for Moonchaser on outgoing transactions over $100.00. Sent with care from Example Technologies Inc., 660 Mission Street, San Francisco, CA 94105.\n' +
  'Manage your notification settings at any time from the account page. This message was sent to david@example.com because you are an administrator of the account. '

function toSize(text: string, size: number): string {
  let out = text
  while (out.length < size) out += text
  return out.slice(0, size)
}

function measure(
  detector: InjectionDetector,
  base: string,
  channel: Channel,
  size: number,
  runs: number,
): number[] {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    // A fresh variant each run, as an uncached text would be.
    const text = `${i} ${toSize(base, size - String(i).length - 1)}`
    const start = performance.now()
    detector.analyze(text, channel)
    times.push(performance.now() - start)
  }
  return times.sort((a, b) => a - b)
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

/** A 200 KB tool result analysed on a worker thread (after one to start and warm it) and on this thread. */
async function measureOffload(detector: InjectionDetector): Promise<void> {
  const settings = {
    threshold: 0.7,
    tool_result_threshold: 0.7,
    scan_system: false,
    scan_assistant: true,
    scan_tool_results: true,
    decode_payloads: true,
    allow_list: [],
    allow_patterns: [],
    cache_size: 0,
    offload_above_bytes: 32 * 1024,
    offload_workers: 1,
  }
  const instance = createInstance(settings, makeServices('detect_injection'), detector)
  const request = (text: string) =>
    instance.onRequest?.(
      makeRequestContext(makeExchange([{ source: 'tool', toolResults: [{ toolCallId: 'c', text }] }])),
    )
  for (let i = 0; i < 3; i++) await request(`${i} ${toSize(EMAIL, 200 * 1024)}`)
  const text = `x ${toSize(EMAIL, 200 * 1024)}`
  const offloaded = await measureEventLoop(() => request(text))
  const inThread = await measureEventLoop(() => detector.analyze(text, 'tool'))
  await instance.close()
  console.log(
    `\n200 KB tool result: worker ${offloaded.ms.toFixed(1)} ms (event loop stalled at most ${offloaded.gap.toFixed(1)} ms), calling thread ${inThread.ms.toFixed(1)} ms (stalled ${inThread.gap.toFixed(1)} ms)`,
  )
}

async function main(): Promise<void> {
  const detector = loadDetector()
  measure(detector, PROMPT, 'direct', 1024, 300)
  console.log('| text | size | median ms | p99 ms | median ms/KB |')
  console.log('|---|---:|---:|---:|---:|')
  for (const [name, base, channel] of [
    ['user prompt', PROMPT, 'direct'],
    ['tool result (email)', EMAIL, 'tool'],
  ] as const) {
    const t = measure(detector, base, channel, 1024, 2000)
    console.log(
      `| ${name} | 1 KB | ${quantile(t, 0.5).toFixed(3)} | ${quantile(t, 0.99).toFixed(3)} | ${quantile(t, 0.5).toFixed(3)} |`,
    )
  }
  for (const kb of [32, 64, 200]) {
    const big = measure(detector, EMAIL, 'tool', kb * 1024, 10)
    console.log(
      `| tool result (email) | ${kb} KB | ${quantile(big, 0.5).toFixed(1)} | ${quantile(big, 0.99).toFixed(1)} | ${(quantile(big, 0.5) / kb).toFixed(3)} |`,
    )
  }
  await measureOffload(detector)
}

await main()
