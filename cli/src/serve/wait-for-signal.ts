/** Resolve with the name of the first of `signals` the process receives; the handlers are removed afterwards. */
export function waitForSignal(
  signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'],
): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handlers = new Map<NodeJS.Signals, () => void>()
    for (const signal of signals) {
      const handler = () => {
        for (const [s, h] of handlers) process.off(s, h)
        resolve(signal)
      }
      handlers.set(signal, handler)
      process.on(signal, handler)
    }
  })
}
