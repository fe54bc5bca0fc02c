import { Decimal } from '../../core/index.js';
import type { SimPair } from '../markets.js';

export interface LadderShape {
  readonly levels: number;
  /** Fraction of fair value between it and the first level. */
  readonly halfSpread: number;
  /** Price distance between levels, in whole ticks. */
  readonly stepTicks: number;
}

export interface Ladder {
  /** Best first. */
  readonly bids: readonly Decimal[];
  readonly asks: readonly Decimal[];
}

/**
 * Level spacing in ticks for a level step given as a fraction of fair value. Fixed between
 * regrids so that the ladder sits on a grid: as fair value drifts, only the levels at the edges
 * change and the others keep their place in the queue.
 */
export function stepTicks(pair: SimPair, fairValue: Decimal, levelStep: number): number {
  const ticks = fairValue.times(levelStep).div(pair.tick).round().toNumber();
  return Math.max(1, ticks);
}

/**
 * The background's resting prices: bids on the grid at or below fair value less the half-spread,
 * asks at or above fair value plus it, never crossing, never at or below zero.
 */
export function ladder(pair: SimPair, fairValue: Decimal, shape: LadderShape): Ladder {
  const grid = pair.tick.times(shape.stepTicks);
  const bidEdge = fairValue.times(1 - shape.halfSpread);
  const askEdge = fairValue.times(1 + shape.halfSpread);
  const bidTop = bidEdge.div(grid).floor().times(grid);
  let askBottom = askEdge.div(grid).ceil().times(grid);
  if (askBottom.lte(bidTop)) askBottom = bidTop.plus(grid);
  const bids: Decimal[] = [];
  const asks: Decimal[] = [];
  for (let i = 0; i < shape.levels; i++) {
    const bid = bidTop.minus(grid.times(i));
    if (bid.gt(0)) bids.push(bid);
    asks.push(askBottom.plus(grid.times(i)));
  }
  return { bids, asks };
}

/** A volume worth about `notional` at `price`, on the lot, meeting ordermin and costmin. */
export function volumeFor(pair: SimPair, notional: Decimal, price: Decimal): Decimal {
  const lot = pair.lot_decimals;
  let volume = notional.div(price).toDecimalPlaces(lot, Decimal.ROUND_DOWN);
  const forCost = pair.costMin.div(price).toDecimalPlaces(lot, Decimal.ROUND_UP);
  if (volume.lt(pair.orderMin)) volume = pair.orderMin.toDecimalPlaces(lot, Decimal.ROUND_UP);
  if (volume.lt(forCost)) volume = forCost;
  return volume;
}

/** Rounds a price onto the tick: up for a buyer's limit, down for a seller's. */
export function onTick(pair: SimPair, price: Decimal, up: boolean): Decimal {
  const steps = price.div(pair.tick);
  return (up ? steps.ceil() : steps.floor()).times(pair.tick);
}
