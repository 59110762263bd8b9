// autocannon ships no types; this declares the part the benchmark uses.
declare module 'autocannon' {
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }
  interface RequestSpec extends Request {
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request
  }
  interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
    p99_9?: number
  }
  interface Result {
    url: string
    connections: number
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    resets: number
    '2xx': number
    latency: Histogram
    requests: Histogram & { sent: number }
    throughput: Histogram
    statusCodeStats: Record<string, { count: number }>
  }
  interface Options {
    url: string
    connections?: number
    duration?: number
    /** Milliseconds between samples (default 1000); the run stops at the first sample after `duration`. */
    sampleInt?: number
    pipelining?: number
    timeout?: number
    headers?: Record<string, string>
    requests?: RequestSpec[]
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
