import { Decimal, InvalidInputError, dec, toWire } from '../core/index.js';
import type { Fill, Position, TrackedOrder } from './types.js';

/**
 * Pure position and PnL arithmetic, and the fill between two views of one order. Every amount is
 * a decimal.js value (src/core/decimal.ts: 40 significant digits, half-even) and is written back
 * as a plain decimal string: no float is ever involved. Sums, differences and products of wire
 * decimals are exact; only the divisions (a fill's price, the average price) round, at the 40th
 * significant digit.
 *
 * Average-cost method. The base position `q` (Position.base) carries an average price `a`:
 * - a fill that opens or extends the position moves `a` to the volume-weighted average of the
 *   existing position and the new part (its share of the fill's cost);
 * - a fill that reduces it realizes `closed × (p − a)` on a long or `closed × (a − p)` on a short,
 *   where `closed × p` is taken as the closed share of the fill's cost, and leaves `a` unchanged;
 * - a fill that takes the position through zero closes all of it and opens the remainder at the
 *   fill's price `p = cost / volume`; a flat position has `a = 0`.
 *
 * Fees. Every fee is valued in quote (a base fee at the fill's price: `fee × cost / volume`),
 * added to `fees` and taken off `realizedPnl`. A quote fee is also taken off `quote`. A base fee
 * comes off `base` instead, and those base units leave the position like a sale at the fill's
 * price: on a long they release their cost basis (so the realized result of the fee is exactly
 * `−fee × a`, the cost of the units given up), on a short they extend it at `p`. Booking the fee
 * units this way keeps the books closed: whenever the position is flat, `realizedPnl` equals
 * `quote` (all the quote that came in minus all that went out, fees included). A flat position
 * therefore takes `realizedPnl = quote` outright, which also drops the 40th-digit remainders that
 * a rounded average price leaves behind.
 */

/** Wire text of a decimal; zero is `0` whatever its sign. */
const wire = (value: Decimal): string => (value.isZero() ? '0' : toWire(value));

export function emptyPosition(pair: string): Position {
  return {
    pair,
    base: '0',
    quote: '0',
    fees: '0',
    avgPrice: '0',
    realizedPnl: '0',
    fills: 0,
    updatedAtMs: 0,
  };
}

interface Book {
  base: Decimal;
  avgPrice: Decimal;
  realized: Decimal;
}

/**
 * Moves `qty` base (signed: + bought, − sold) into the book; `value` is the quote value of
 * |qty| (≥ 0) and `price` the price the remainder opens at when the position crosses zero.
 */
function move(book: Book, qty: Decimal, value: Decimal, price: Decimal): void {
  if (qty.isZero()) return;
  const q = book.base;
  const size = qty.abs();
  const after = q.plus(qty);
  if (q.isZero() || q.isNeg() === qty.isNeg()) {
    // Opening or extending: weighted average of the held units and the new ones.
    book.avgPrice = q.abs().times(book.avgPrice).plus(value).div(after.abs());
  } else {
    const closed = Decimal.min(size, q.abs());
    const closedValue = closed.eq(size) ? value : value.times(closed).div(size);
    const basis = closed.times(book.avgPrice);
    book.realized = book.realized.plus(
      q.isNeg() ? basis.minus(closedValue) : closedValue.minus(basis),
    );
    if (after.isZero()) book.avgPrice = new Decimal(0);
    else if (after.isNeg() !== q.isNeg()) book.avgPrice = price;
  }
  book.base = after;
}

/** The position after one more fill of its pair. */
export function applyFill(position: Position, fill: Fill): Position {
  if (fill.pair !== position.pair) {
    throw new InvalidInputError('fill.pair', `is ${fill.pair}, the position is ${position.pair}`);
  }
  const volume = dec(fill.volume);
  if (!volume.gt(0)) {
    throw new InvalidInputError('fill.volume', `must be positive, got ${fill.volume}`);
  }
  const cost = dec(fill.cost);
  const fee = dec(fill.fee);
  const price = dec(fill.price);
  const book: Book = {
    base: dec(position.base),
    avgPrice: dec(position.avgPrice),
    realized: dec(position.realizedPnl),
  };
  let quote = dec(position.quote);

  const buy = fill.side === 'buy';
  move(book, buy ? volume : volume.neg(), cost, price);
  quote = buy ? quote.minus(cost) : quote.plus(cost);

  let feeQuote: Decimal;
  if (fill.feeIn === 'quote') {
    feeQuote = fee;
    quote = quote.minus(fee);
  } else {
    feeQuote = fee.times(cost).div(volume);
    move(book, fee.neg(), feeQuote.abs(), price);
  }
  book.realized = book.realized.minus(feeQuote);
  const fees = dec(position.fees).plus(feeQuote);

  if (book.base.isZero()) {
    book.avgPrice = new Decimal(0);
    book.realized = quote;
  }
  return {
    pair: position.pair,
    base: wire(book.base),
    quote: wire(quote),
    fees: wire(fees),
    avgPrice: wire(book.avgPrice),
    realizedPnl: wire(book.realized),
    fills: position.fills + 1,
    updatedAtMs: fill.atMs,
  };
}

/**
 * The execution between two views of one order: the growth of volumeExecuted, cost and fee,
 * priced at Δcost / Δvolume. Undefined when volumeExecuted did not grow (same view again, or an
 * older one). Throws InvalidInputError when the views cannot be of the same order (pair, userref,
 * side or txid differ) or the growth makes no sense (cost went down, no txid for an execution).
 */
export function deriveFill(
  before: TrackedOrder,
  after: TrackedOrder,
  atMs: number,
): Fill | undefined {
  if (after.pair !== before.pair || after.userref !== before.userref) {
    throw new InvalidInputError(
      'after',
      `is ${after.pair} userref ${after.userref}, not ${before.pair} userref ${before.userref}`,
    );
  }
  const volume = dec(after.volumeExecuted).minus(dec(before.volumeExecuted));
  if (!volume.gt(0)) return undefined;
  if (after.side !== before.side) {
    throw new InvalidInputError('after.side', `is ${after.side}, the order is a ${before.side}`);
  }
  if (before.txid !== null && after.txid !== null && after.txid !== before.txid) {
    throw new InvalidInputError(
      'after.txid',
      `is ${after.txid}, the stored order of userref ${after.userref} is ${before.txid}`,
    );
  }
  const txid = after.txid ?? before.txid;
  if (txid === null) {
    throw new InvalidInputError('after.txid', 'is null although the order executed');
  }
  const cost = dec(after.cost).minus(dec(before.cost));
  if (cost.lt(0)) {
    throw new InvalidInputError(
      'after.cost',
      `went down from ${before.cost} to ${after.cost} while volumeExecuted grew`,
    );
  }
  return {
    pair: after.pair,
    txid,
    userref: after.userref,
    side: after.side,
    price: wire(cost.div(volume)),
    volume: wire(volume),
    cost: wire(cost),
    fee: wire(dec(after.fee).minus(dec(before.fee))),
    feeIn: after.feeIn,
    atMs,
  };
}
