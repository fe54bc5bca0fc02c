import { dec, encodeUserref, type OwnOrder } from '../../src/core/index.js';

/** One of our resting limit orders as the feed reports it: slot level `level`, generation 1. */
export function ownOrder(
  side: 'buy' | 'sell',
  level: number,
  price: string,
  volume = '0.01',
  instance = 1,
): OwnOrder {
  return Object.freeze({
    txid: `O${side}${level}-${price}`,
    userref: encodeUserref(instance, { side, level }, 1),
    slot: { side, level },
    generation: 1,
    side,
    orderType: 'limit',
    price: dec(price),
    volume: dec(volume),
    volumeExecuted: dec('0'),
    openedAtMs: 1_700_000_000_000,
    postOnly: true,
  });
}
