import { Writable } from 'node:stream';

/** Back to the first of `lines` status lines, and everything from there down erased. */
const clearing = (lines: number): string => `\r${lines > 1 ? `\x1b[${lines - 1}A` : ''}\x1b[J`;

/**
 * Log lines scrolling above a status (one line or a few) that stays at the bottom of a terminal:
 * each log write clears the status, writes the log, and draws the status again. Without a
 * terminal the status is never drawn (the caller logs it now and then instead).
 */
export class LiveTerminal {
  readonly #out: NodeJS.WriteStream;
  readonly live: boolean;
  #status = '';
  #lines = 0;

  constructor(out: NodeJS.WriteStream = process.stdout) {
    this.#out = out;
    this.live = out.isTTY === true;
  }

  /**
   * Columns a status line may take: one less than the terminal's (a line that reaches the last
   * column wraps on some terminals), 80 when it does not say.
   */
  get width(): number {
    return Math.max(20, (this.#out.columns || 80) - 1);
  }

  /** Where log lines go. */
  readonly logStream = new Writable({
    write: (chunk: Buffer | string, _encoding, done) => {
      this.#out.write(
        this.live ? `${clearing(this.#lines)}${String(chunk)}${this.#status}` : chunk,
        () => done(),
      );
    },
  });

  /** Draws the status: a line, or lines (each cut to the width: a wrapped one could not be cleared). */
  setStatus(text: string | readonly string[]): void {
    if (!this.live) return;
    const width = this.width;
    const lines = (typeof text === 'string' ? [text] : text).map((line) =>
      line.length > width ? `${line.slice(0, width - 1)}…` : line,
    );
    const before = this.#lines;
    this.#status = lines.join('\n');
    this.#lines = lines.length;
    this.#out.write(`${clearing(before)}${this.#status}`);
  }

  /** Removes the status (before the last log lines of a shutdown). */
  clear(): void {
    if (!this.live || this.#lines === 0) return;
    this.#out.write(clearing(this.#lines));
    this.#status = '';
    this.#lines = 0;
  }
}
