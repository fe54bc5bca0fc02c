import { invalidArguments, SimError } from '../errors.js';
import { ERR } from './messages.js';
import { becomesLimit, isStopType, isTrailing } from './prices.js';
import type { CloseSpec, OrderSpec, OrderType, PriceSpec } from './types.js';

/**
 * Checks of an order's own fields, before any market state is looked at. The HTTP layer parses
 * most of this already; the engine repeats it because background participants, conditional closes
 * and edits build specs without going through HTTP.
 */
export function checkSpec(spec: OrderSpec, nowMs: number): void {
  const { ordertype, flags, pair } = spec;
  // Margin is not simulated: leverage and position settlement are margin features.
  if (ordertype === 'settle-position') throw invalidArguments('ordertype');
  if (spec.leverage !== undefined && spec.leverage !== 'none') {
    throw new SimError(ERR.cannotOpenPosition);
  }
  if (spec.reduceOnly) throw invalidArguments('reduce_only');

  if (!spec.volume.gt(0)) throw invalidArguments('volume');
  // Volumes beyond lot_decimals would make cost and fills inexact; viqc volume is quote.
  if (!flags.viqc && spec.volume.decimalPlaces() > pair.lot_decimals) {
    throw invalidArguments('volume');
  }

  if (flags.fcib && flags.fciq) throw invalidArguments('oflags');
  if (flags.viqc && ordertype !== 'market') throw invalidArguments('oflags');
  if (flags.post && ordertype !== 'limit') throw invalidArguments('oflags');
  if (flags.post && spec.timeinforce === 'IOC') throw invalidArguments('timeinforce');

  if (spec.displayvol !== undefined) {
    const d = spec.displayvol;
    if (ordertype !== 'limit' || !d.gt(0) || d.gte(spec.volume)) {
      throw invalidArguments('displayvol');
    }
    if (d.decimalPlaces() > pair.lot_decimals) throw invalidArguments('displayvol');
  }

  checkPrices(ordertype, spec.price, spec.price2, 'price', 'price2');

  if (spec.timeinforce === 'GTD' && spec.expiretmMs === 0) throw invalidArguments('expiretm');
  if (spec.expiretmMs !== 0) {
    if (spec.expiretmMs <= nowMs) throw invalidArguments('expiretm');
    if (spec.starttmMs !== 0 && spec.expiretmMs <= spec.starttmMs) {
      throw invalidArguments('expiretm');
    }
  }

  if (spec.close !== undefined) checkClose(spec.close);
}

function checkClose(close: CloseSpec): void {
  const t: OrderType = close.ordertype;
  if (t !== 'limit' && !isStopType(t)) throw invalidArguments('close[ordertype]');
  checkPrices(t, close.price, close.price2, 'close[price]', 'close[price2]');
}

function checkPrices(
  ordertype: OrderType,
  price: PriceSpec | undefined,
  price2: PriceSpec | undefined,
  priceField: string,
  price2Field: string,
): void {
  if (ordertype === 'market') return;
  if (price === undefined) throw invalidArguments(priceField);
  if (price.kind === 'abs' && !price.value.gt(0)) throw invalidArguments(priceField);
  if (price.kind === 'rel' && price.amount.isNegative()) throw invalidArguments(priceField);
  if (isTrailing(ordertype)) {
    // The spec: a `+` offset, the direction follows the side; a zero trail would fire at once.
    if (price.kind !== 'rel' || price.op !== '+' || !price.amount.gt(0)) {
      throw invalidArguments(priceField);
    }
  }
  if (!becomesLimit(ordertype)) return;
  if (price2 === undefined) throw invalidArguments(price2Field);
  if (price2.kind === 'abs' && !price2.value.gt(0)) throw invalidArguments(price2Field);
  if (price2.kind === 'rel' && price2.amount.isNegative()) throw invalidArguments(price2Field);
  if (isTrailing(ordertype) && (price2.kind !== 'rel' || price2.op === '#')) {
    throw invalidArguments(price2Field);
  }
}
