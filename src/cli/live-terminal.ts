import { Writable } from 'node:stream';

const CLEAR_LINE = '\r\x1b[K';

/**
 * Log lines scrolling above one status line that stays at the bottom of a terminal: each log
 * write clears the status line, writes the log, and draws the status line again. Without a
 * terminal the status line is never drawn (the caller logs it now and then instead).
 */
export class LiveTerminal {
  readonly #out: NodeJS.WriteStream;
  readonly live: boolean;
  #status = '';

  constructor(out: NodeJS.WriteStream = process.stdout) {
    this.#out = out;
    this.live = out.isTTY === true;
  }

  /** Where log lines go. */
  readonly logStream = new Writable({
    write: (chunk: Buffer | string, _encoding, done) => {
      this.#out.write(this.live ? `${CLEAR_LINE}${String(chunk)}${this.#status}` : chunk, () =>
        done(),
      );
    },
  });

  setStatus(text: string): void {
    if (!this.live) return;
    // Cut to the terminal's width: a wrapped line could not be cleared with one \r.
    const width = Math.max(20, (this.#out.columns || 120) - 1);
    this.#status = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    this.#out.write(`${CLEAR_LINE}${this.#status}`);
  }

  /** Removes the status line (before the last log lines of a shutdown). */
  clear(): void {
    if (!this.live || this.#status === '') return;
    this.#status = '';
    this.#out.write(CLEAR_LINE);
  }
}
