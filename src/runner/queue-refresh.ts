/**
 * Queue-aware refresh: whether moving a live order to its desired price is worth what the move
 * costs. An EditOrder (or cancel and add) puts the order at the back of its new price's queue,
 * spends ratecount points by the order's age, and gives up the place the order had earned at its
 * old price. With a strategy's valuation of the queue (DesiredQuote.queue):
 *
 *   place(o)  = queue value × behind / (ahead + behind)     the share of the market's volume at
 *                                                           its price that is behind it (1 alone)
 *   new place = queue value × (the market has no volume at the new price ? 1 : 0)
 *   cost      = max(0, place(o) − new place) + points(EditOrder, age) × point value
 *   move when drift (bps of the desired price) > tolerance + cost
 *
 * Only a move towards the mid is weighed: an order that the market has left more aggressive than
 * the strategy wants (a bid above its desired price, an ask below) is moved at the plain
 * tolerance, so valuing the queue never keeps a quote nearer the mid than the strategy's floor.
 */
import { Decimal } from '../core/decimal.js';
import type { BookView, OwnOrder, QueuePosition } from '../core/market.js';
import type { RoundedQuote } from './quote-rounding.js';

/** What the runner knows when it weighs a move. */
export interface QueueContext {
  /** Where our resting orders stand (snapshot.queue). */
  readonly queue: readonly QueuePosition[];
  /** The market without us: is there a queue at the new price to join the back of? */
  readonly book: BookView;
  /** Ratecount points an EditOrder of an order this old costs (the exchange's table). */
  readonly editPoints: (ageMs: number) => number;
}

const ZERO = new Decimal(0);

/** The extra drift (bps) a move must exceed beyond the tolerance; 0 when queue-blind. */
export function queueCostBps(
  live: OwnOrder,
  want: RoundedQuote,
  nowMs: number,
  ctx: QueueContext | undefined,
): Decimal {
  const value = want.queue;
  if (value === undefined || ctx === undefined || value.valueBps <= 0) return ZERO;
  // A live order more aggressive than wanted moves at the plain tolerance.
  const towardsMid = live.side === 'buy' ? want.price.gt(live.price) : want.price.lt(live.price);
  if (!towardsMid) return ZERO;
  const valueBps = new Decimal(value.valueBps);
  const place = ctx.queue.find((q) => q.txid === live.txid);
  const held = place === undefined ? ZERO : valueBps.times(shareBehind(place));
  const levels = live.side === 'buy' ? ctx.book.bids : ctx.book.asks;
  const joinsEmpty = !levels.some((l) => l.price.eq(want.price));
  const lost = held.minus(joinsEmpty ? valueBps : ZERO);
  const points = ctx.editPoints(Math.max(0, nowMs - live.openedAtMs));
  const spend = new Decimal(points).times(value.ratecountPointBps);
  return (lost.gt(0) ? lost : ZERO).plus(spend);
}

/** Behind / (ahead + behind): 1 at the front or alone, 0 at the back of a queue. */
function shareBehind(q: QueuePosition): Decimal {
  const total = q.ahead.plus(q.behind);
  return total.isZero() ? new Decimal(1) : q.behind.div(total);
}
