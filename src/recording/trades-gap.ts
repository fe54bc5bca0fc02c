import type { TradesGap } from '../market/index.js';
import type { RecordedRow } from './format.js';
import type { RecordingProblem } from './problems.js';

/**
 * A `TradesGap` row: the trades a pair's Trades poll skipped (src/market/trades-cursor.ts),
 * written when it skipped them, in the answers' envelope like `OwnOrders`.
 */
export function tradesGapRow(pair: string, atMs: number, gap: TradesGap): RecordedRow {
  const result = {
    after_id: gap.afterId,
    after_ms: gap.afterMs,
    resume_id: gap.resumeId,
    resume_ms: gap.resumeMs,
    missed: gap.missed,
    calls_short: gap.callsShort,
  };
  return {
    askedMs: atMs,
    receivedMs: atMs,
    endpoint: 'TradesGap',
    pair,
    body: JSON.stringify({ error: [], result }),
  };
}

/** The gap a `TradesGap` row of `pair` holds, as the reader reports it. */
export function tradesGapProblem(pair: string, row: RecordedRow): RecordingProblem {
  const r = ((JSON.parse(row.body ?? '{}') as { result?: unknown }).result ?? {}) as Record<
    string,
    unknown
  >;
  const num = (key: string, fallback: number): number => {
    const v = r[key];
    return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
  };
  const fromMs = num('after_ms', row.receivedMs);
  const toMs = num('resume_ms', row.receivedMs);
  const iso = (ms: number): string => new Date(ms).toISOString();
  return {
    kind: 'gap',
    pair,
    fromMs,
    toMs,
    message:
      `${pair}: trades missed from ${iso(fromMs)} to ${iso(toMs)} (${num('missed', NaN)} trades, ` +
      `ids ${num('after_id', NaN) + 1} to ${num('resume_id', NaN) - 1}; ` +
      `${num('calls_short', NaN)} Trades calls short)`,
  };
}
