import { performance } from 'node:perf_hooks';

/**
 * Cost of one call of `fn`: after `warmup` untimed calls, `iterations` timed calls split into
 * `rounds` equal rounds; the figure is the median of the rounds' means, so that a burst of noise
 * from a neighbour process on a shared machine moves one round rather than the result.
 */
export function timeLoop(
  fn: (i: number) => unknown,
  iterations: number,
  warmup: number,
  rounds = 5,
): { usPerOp: number; opsPerSec: number } {
  let sink = 0;
  for (let i = 0; i < warmup; i++) sink ^= touch(fn(i));
  const perRound = Math.max(1, Math.floor(iterations / rounds));
  const means = new Float64Array(rounds);
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) sink ^= touch(fn(i));
    means[r] = ((performance.now() - start) * 1000) / perRound;
  }
  blackhole(sink);
  const usPerOp = percentile(means.sort(), 50);
  return { usPerOp, opsPerSec: 1e6 / usPerOp };
}

/** Something of the result the optimiser cannot prove unused. */
function touch(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length;
  return 1;
}

let hole = 0;
function blackhole(n: number): void {
  hole ^= n;
  if (hole === 0x7fffffff) console.log('');
}

/** Nearest-rank percentile of an already sorted array. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** `322000` → `322,000`. */
export function fmtInt(n: number): string {
  return int.format(n);
}

/** Three significant figures, no exponent: 3.14, 41.2, 410. */
export function fmt3(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n >= 100) return fmtInt(n);
  return n.toPrecision(3);
}
