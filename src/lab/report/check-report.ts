import { InvalidInputError, isDecimalString } from '../../core/index.js';
import type { BacktestReport, PairReport } from './report-data.js';

/**
 * The mistakes that would draw a wrong chart without failing: columns of different lengths, time
 * running backwards, a money figure that is not exact decimal text. Throws an InvalidInputError
 * naming the field.
 */
export function checkReport(data: BacktestReport): void {
  if (data.makerd_report !== 1) {
    throw new InvalidInputError('report.makerd_report', 'must be 1 (the version this page draws)');
  }
  const seen = new Set<string>();
  data.pairs.forEach((p, i) => {
    const field = `report.pairs[${i}]`;
    if (p.pair === '') throw new InvalidInputError(`${field}.pair`, 'must not be empty');
    if (seen.has(p.pair)) throw new InvalidInputError(`${field}.pair`, `${p.pair} appears twice`);
    seen.add(p.pair);
    checkPair(p, field);
  });
  data.fidelity?.rows.forEach((r, i) => {
    for (const side of ['live', 'replay'] as const) {
      for (const key of ['volume', 'realizedPnl'] as const) {
        exact(r[side][key], `report.fidelity.rows[${i}].${side}.${key}`);
      }
    }
  });
}

function checkPair(p: PairReport, field: string): void {
  const s = p.series;
  const n = s.tMs.length;
  const columns = {
    mid: s.mid,
    bid: s.bid,
    ask: s.ask,
    targetBid: s.targetBid,
    targetAsk: s.targetAsk,
    position: s.position,
    pnlSpread: s.pnlSpread,
    pnlInventory: s.pnlInventory,
    pnlFees: s.pnlFees,
    pnlTotal: s.pnlTotal,
    ratecount: s.ratecount,
  };
  for (const [name, col] of Object.entries(columns)) {
    if (col !== undefined && col.length !== n) {
      throw new InvalidInputError(
        `${field}.series.${name}`,
        `has ${col.length} points, tMs has ${n}`,
      );
    }
  }
  for (let i = 1; i < n; i++) {
    if ((s.tMs[i] as number) < (s.tMs[i - 1] as number)) {
      throw new InvalidInputError(`${field}.series.tMs`, `goes back in time at point ${i}`);
    }
  }
  const m = p.markouts;
  for (const side of ['buy', 'sell', 'all'] as const) {
    if (m[side].length !== m.horizonsMs.length) {
      throw new InvalidInputError(
        `${field}.markouts.${side}`,
        `has ${m[side].length} values for ${m.horizonsMs.length} horizons`,
      );
    }
  }
  for (const key of ['spread', 'inventory', 'fees', 'total'] as const) {
    exact(p.summary.pnl[key], `${field}.summary.pnl.${key}`);
  }
  exact(p.summary.volumeBase, `${field}.summary.volumeBase`);
  exact(p.summary.volumeQuote, `${field}.summary.volumeQuote`);
  p.fills.forEach((f, i) => exact(f.price, `${field}.fills[${i}].price`));
}

function exact(value: string, field: string): void {
  if (!isDecimalString(value)) {
    throw new InvalidInputError(field, `must be a decimal string, got ${JSON.stringify(value)}`);
  }
}
