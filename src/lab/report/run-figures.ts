import { dec, toWire } from '../../core/index.js';
import type { InventoryStats, PairReport, QuoteTotal } from './report-data.js';

/** The largest fall from a high before it (>= 0); 0 for a curve that never falls. */
export function maxDrawdown(values: readonly number[]): number {
  let peak = -Infinity;
  let worst = 0;
  for (const v of values) {
    peak = Math.max(peak, v);
    worst = Math.max(worst, peak - v);
  }
  return worst;
}

/**
 * Min, max and time-weighted means of a step series (each point holds until the next; the last
 * one's weight is zero): the inventory a strategy carried, in base units.
 */
export function inventoryStats(
  tMs: readonly number[],
  position: readonly number[],
): InventoryStats {
  if (position.length === 0) return { min: 0, max: 0, mean: 0, meanAbs: 0 };
  let sum = 0;
  let sumAbs = 0;
  let span = 0;
  for (let i = 0; i + 1 < tMs.length; i++) {
    const dt = (tMs[i + 1] as number) - (tMs[i] as number);
    const p = position[i] as number;
    sum += p * dt;
    sumAbs += Math.abs(p) * dt;
    span += dt;
  }
  const only = position[0] as number;
  return {
    min: Math.min(...position),
    max: Math.max(...position),
    mean: span > 0 ? sum / span : only,
    meanAbs: span > 0 ? sumAbs / span : Math.abs(only),
  };
}

/** PnL per quote volume traded in bps, two decimals; null without volume. */
export function pnlPerVolumeBps(total: string, volumeQuote: string): number | null {
  const volume = dec(volumeQuote);
  if (volume.isZero()) return null;
  return Number(dec(total).div(volume).times(10_000).toFixed(2));
}

/**
 * The pairs' totals per quote currency: the PnL split and volume summed exactly, and the equity
 * curve (each pair's PnL total held from its last point, summed at every time any pair has one)
 * with its maximum drawdown.
 */
export function quoteTotals(pairs: readonly PairReport[]): QuoteTotal[] {
  const quotes = [...new Set(pairs.map((p) => p.quote))];
  return quotes.map((quote) => {
    const of = pairs.filter((p) => p.quote === quote);
    const sum = (get: (p: PairReport) => string): string =>
      toWire(of.reduce((s, p) => s.plus(get(p)), dec(0)));
    const pnl = {
      spread: sum((p) => p.summary.pnl.spread),
      inventory: sum((p) => p.summary.pnl.inventory),
      fees: sum((p) => p.summary.pnl.fees),
      total: sum((p) => p.summary.pnl.total),
    };
    const volumeQuote = sum((p) => p.summary.volumeQuote);
    const equity = equityCurve(of);
    return {
      quote,
      pairs: of.map((p) => p.pair),
      pnl,
      volumeQuote,
      pnlPerVolumeBps: pnlPerVolumeBps(pnl.total, volumeQuote),
      maxDrawdown: maxDrawdown(equity.total),
      equity,
    };
  });
}

function equityCurve(pairs: readonly PairReport[]): { tMs: number[]; total: number[] } {
  const times = [...new Set(pairs.flatMap((p) => p.series.tMs))].sort((a, b) => a - b);
  const at = pairs.map(() => 0);
  const held = pairs.map(() => 0);
  const total = times.map((t) => {
    let sum = 0;
    pairs.forEach((p, i) => {
      const s = p.series;
      while ((at[i] as number) < s.tMs.length && (s.tMs[at[i] as number] as number) <= t) {
        held[i] = s.pnlTotal[at[i] as number] as number;
        at[i] = (at[i] as number) + 1;
      }
      sum += held[i] as number;
    });
    return Number(sum.toPrecision(12));
  });
  return { tMs: times, total };
}
