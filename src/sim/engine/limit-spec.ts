import type { Decimal } from '../../core/index.js';
import type { SimPair } from '../markets.js';
import type { OrderSpec, Side } from './types.js';

/**
 * A plain limit order as the simulator's own participants place it (the background market, and
 * replay's recorded ones): no flags, no trigger, no expiry, self-trade cancels the newest.
 */
export function limitSpec(
  pair: SimPair,
  side: Side,
  volume: Decimal,
  price: Decimal,
  timeinforce: 'GTC' | 'IOC',
): OrderSpec {
  return {
    pair,
    side,
    ordertype: 'limit',
    volume,
    price: { kind: 'abs', value: price },
    trigger: 'last',
    flags: { post: false, fcib: false, fciq: false, nompp: false, viqc: false },
    timeinforce,
    starttmMs: 0,
    expiretmMs: 0,
    userref: 0,
    stptype: 'cancel-newest',
    reduceOnly: false,
  };
}
