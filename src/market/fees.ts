import { dec, Decimal, type FeeRates, type FeeStep, type PairInfo } from '../core/index.js';
import type { endpoints } from '../exchange/index.js';

const BPS_PER_PERCENT = new Decimal(100);

/**
 * The pair's fee ladders from an AssetPairs entry: rows [volume, percent], lowest volume first.
 * Rows that are not two numbers are left out, so an odd answer costs the ladder, not the start.
 */
export function feeLadderOf(rows: readonly unknown[] | undefined): FeeStep[] {
  const out: FeeStep[] = [];
  for (const row of rows ?? []) {
    if (!Array.isArray(row) || row.length < 2) continue;
    const [volume, percent] = row as unknown[];
    if (!isNumeric(volume) || !isNumeric(percent)) continue;
    out.push(Object.freeze({ volumeUsd: dec(String(volume)), percent: dec(String(percent)) }));
  }
  return out.sort((a, b) => a.volumeUsd.comparedTo(b.volumeUsd));
}

function isNumeric(v: unknown): v is number | string {
  return (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && v !== '');
}

/** The fee in percent at a 30-day volume: the highest rung at or below it (the first rung below). */
export function ladderPercent(ladder: readonly FeeStep[], volumeUsd: Decimal): Decimal | undefined {
  let percent: Decimal | undefined;
  for (const step of ladder) {
    if (percent === undefined || step.volumeUsd.lte(volumeUsd)) percent = step.percent;
  }
  return percent;
}

/**
 * The fees before the key's first TradeVolume answer: the pair's ladder at the configured 30-day
 * volume (default 0, the ladder's first and dearest rung: never cheaper than the truth). A pair
 * that publishes no ladder is charged `fallbackPercent` both ways.
 */
export function ladderFees(pair: PairInfo, volumeUsd: Decimal, fallbackPercent: Decimal): FeeRates {
  const maker = ladderPercent(pair.feeLadder.maker, volumeUsd) ?? fallbackPercent;
  const taker = ladderPercent(pair.feeLadder.taker, volumeUsd) ?? fallbackPercent;
  return Object.freeze({
    makerBps: maker.times(BPS_PER_PERCENT),
    takerBps: taker.times(BPS_PER_PERCENT),
    source: 'ladder',
    volumeUsd,
  });
}

/**
 * The key's fees in one pair from a TradeVolume answer (asked with `pair`): `fees_maker[pair].fee`
 * and `fees[pair].fee`, in percent. Undefined when the answer does not carry both for the pair.
 */
export function tradeVolumeFees(
  result: endpoints.TradeVolumeResult,
  pairId: string,
): FeeRates | undefined {
  const maker = feeOf(result.fees_maker?.[pairId]);
  const taker = feeOf(result.fees?.[pairId]);
  if (maker === undefined || taker === undefined) return undefined;
  return Object.freeze({
    makerBps: maker.times(BPS_PER_PERCENT),
    takerBps: taker.times(BPS_PER_PERCENT),
    source: 'trade-volume',
    volumeUsd: dec(result.volume),
  });
}

function feeOf(entry: Readonly<Record<string, unknown>> | undefined): Decimal | undefined {
  const fee = entry?.['fee'];
  return isNumeric(fee) && /^\d+(\.\d+)?$/.test(String(fee)) ? dec(String(fee)) : undefined;
}
