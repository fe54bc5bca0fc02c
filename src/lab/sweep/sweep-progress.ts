import { duration } from '../report/index.js';

/** Where a sweep stands, for its one progress bar. */
export interface SweepProgress {
  readonly runs: number;
  readonly done: number;
  readonly failed: number;
  /** Replay time done across the runs (finished ones whole, running ones as they report). */
  readonly replayedMs: number;
  /** Replay time of every run of the sweep. */
  readonly totalMs: number;
  /** Wall time since the first run was queued. */
  readonly elapsedMs: number;
}

/** `[#####.......] 3/8 runs (1 failed), 12 min 30 s of 40 min 00 s replayed, ETA 1 min 10 s`. */
export function progressText(p: SweepProgress, bar: boolean): string {
  const share = p.totalMs > 0 ? Math.min(1, p.replayedMs / p.totalMs) : 0;
  const eta =
    p.replayedMs > 0 && share < 1
      ? duration((p.elapsedMs * (p.totalMs - p.replayedMs)) / p.replayedMs)
      : share >= 1
        ? '0 s'
        : '-';
  const text =
    `${p.done}/${p.runs} runs${p.failed > 0 ? ` (${p.failed} failed)` : ''}, ` +
    `${duration(p.replayedMs)} of ${duration(p.totalMs)} replayed, ETA ${eta}`;
  if (!bar) return `sweep: ${text}`;
  const width = 24;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`;
}

/** Counts a sweep's jobs as their events come, for progressText. */
export class SweepTally {
  readonly #spans = new Map<string, number>();
  readonly #running = new Map<string, number>();
  readonly #finished = new Set<string>();
  #finishedMs = 0;
  #failed = 0;
  /** Replay time of every run the sweep expects (its split's second part estimated). */
  totalMs: number;

  constructor(totalMs: number) {
    this.totalMs = totalMs;
  }

  plan(job: string, spanMs: number): void {
    this.#spans.set(job, spanMs);
  }

  progress(job: string, replayedMs: number): void {
    if (!this.#finished.has(job)) this.#running.set(job, replayedMs);
  }

  finish(job: string, failed: boolean): void {
    if (this.#finished.has(job)) return;
    this.#finished.add(job);
    this.#running.delete(job);
    this.#finishedMs += this.#spans.get(job) ?? 0;
    if (failed) this.#failed += 1;
  }

  view(elapsedMs: number): SweepProgress {
    const running = [...this.#running.values()].reduce((a, b) => a + b, 0);
    return {
      runs: this.#spans.size,
      done: this.#finished.size,
      failed: this.#failed,
      replayedMs: this.#finishedMs + running,
      totalMs: this.totalMs,
      elapsedMs,
    };
  }
}
