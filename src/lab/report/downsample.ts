/**
 * Thins columns that share one time axis to at most `maxPoints` rows, for the page only (the JSON
 * keeps every row). Each bucket of consecutive rows becomes two: its first and last time, carrying
 * each column's minimum and maximum in the order they occurred, so a spike a reader should see
 * (a ratecount peak, a PnL drop) survives however long the run.
 */
export interface Thinned {
  readonly t: number[];
  readonly cols: (number | null)[][];
}

export function downsample(
  t: readonly number[],
  cols: readonly (readonly (number | null)[])[],
  maxPoints: number,
): Thinned {
  const n = t.length;
  if (n <= maxPoints) return { t: [...t], cols: cols.map((c) => [...c]) };
  const buckets = Math.max(1, Math.floor(maxPoints / 2));
  const outT: number[] = [];
  const outCols: (number | null)[][] = cols.map(() => []);
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * n) / buckets);
    const to = Math.floor(((b + 1) * n) / buckets);
    outT.push(t[from] as number, t[to - 1] as number);
    cols.forEach((col, c) => {
      const [first, second] = extremes(col, from, to);
      (outCols[c] as (number | null)[]).push(first, second);
    });
  }
  return { t: outT, cols: outCols };
}

/** The minimum and maximum of col[from, to) in order of occurrence; nulls where all are null. */
function extremes(
  col: readonly (number | null)[],
  from: number,
  to: number,
): [number | null, number | null] {
  let lo = -1;
  let hi = -1;
  for (let i = from; i < to; i++) {
    const v = col[i];
    if (v === null || v === undefined) continue;
    if (lo < 0 || v < (col[lo] as number)) lo = i;
    if (hi < 0 || v > (col[hi] as number)) hi = i;
  }
  if (lo < 0) return [null, null];
  const a = col[Math.min(lo, hi)] as number;
  const b = col[Math.max(lo, hi)] as number;
  return [a, b];
}

/** Every k-th item so that at most `max` remain, the last one always kept. */
export function thin<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  const out: T[] = [];
  for (let i = 0; i < max; i++) out.push(items[Math.floor(i * step)] as T);
  out[max - 1] = items[items.length - 1] as T;
  return out;
}
