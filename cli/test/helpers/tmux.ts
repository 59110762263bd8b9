import { execFileSync } from 'node:child_process'

/** True when the `tmux` command exists on this machine. */
export function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * A command running in a real terminal: a detached tmux session on its own
 * server socket (so tests never touch a user's tmux), 160×50, kept after the
 * command exits so its last screen can still be read.
 */
export class TmuxTerminal {
  readonly #socket = `gov-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`

  constructor(command: string, options: { cwd: string; env?: Record<string, string> }) {
    const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
    this.#tmux([
      'new-session',
      '-d',
      '-s',
      'main',
      '-x',
      '160',
      '-y',
      '50',
      '-c',
      options.cwd,
      ...env,
      command,
    ])
    this.#tmux(['set-option', '-t', 'main', 'remain-on-exit', 'on'])
  }

  #tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.#socket, ...args], { encoding: 'utf8' })
  }

  /** Type a line as a user would, Enter included. */
  type(text: string): void {
    this.#tmux(['send-keys', '-t', 'main', '-l', text])
    this.#tmux(['send-keys', '-t', 'main', 'Enter'])
  }

  /** Press a key by tmux's name for it (`C-d`, `C-c`, `Up`…). */
  key(name: string): void {
    this.#tmux(['send-keys', '-t', 'main', name])
  }

  /** The screen and its scrollback, lines joined where the terminal wrapped them. */
  screen(): string {
    return this.#tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', 'main'])
  }

  /** Poll the screen until `pattern` shows, within `timeoutMs` (a bound, not a sleep). */
  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const screen = this.screen()
      if (pattern.test(screen)) return screen
      if (Date.now() > deadline) throw new Error(`terminal never showed ${pattern}; screen:\n${screen}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  close(): void {
    try {
      this.#tmux(['kill-server'])
    } catch {}
  }
}
