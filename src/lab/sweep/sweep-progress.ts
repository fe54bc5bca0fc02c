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
