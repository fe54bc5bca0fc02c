import { within, type Clock } from '../core/index.js';
import type { StatusReport } from './status-report.js';

/** How long /status waits on Redis before it answers with the last report it read. */
export const STATUS_WAIT_MS = 1_000;

/** A report as read now (`stale: false`), or the last one read, `ageMs` old, while Redis hangs. */
export type BoundedStatus =
  | (StatusReport & { readonly stale: false })
  | (Partial<StatusReport> & { readonly stale: true; readonly ageMs: number | undefined });

/**
 * The status report within a bound: a hung Redis must not hang /status with it. One read at a
 * time: callers while it is under way share it, so a hang does not pile reads up behind it; a
 * read past the bound goes on and, once Redis answers, becomes the last good report.
 */
export class LastStatus {
  readonly #read: () => Promise<StatusReport>;
  readonly #clock: Clock;
  readonly #waitMs: number;
  #last: StatusReport | undefined;
  #reading: Promise<StatusReport> | undefined;

  constructor(read: () => Promise<StatusReport>, clock: Clock, waitMs = STATUS_WAIT_MS) {
    this.#read = read;
    this.#clock = clock;
    this.#waitMs = waitMs;
  }

  /** Rejects only when the read fails (Redis refused a command), not when it is slow. */
  async read(): Promise<BoundedStatus> {
    this.#reading ??= this.#read()
      .then((report) => (this.#last = report))
      .finally(() => (this.#reading = undefined));
    const read = await within(this.#clock, this.#reading, this.#waitMs);
    if (read.done) return { ...read.value, stale: false };
    const last = this.#last;
    return {
      ...last,
      stale: true,
      ageMs: last === undefined ? undefined : Math.round(this.#clock.now() - last.atMs),
    };
  }
}
