/**
 * PairInfo of the simulator's default XBT/USD and ETH/USD markets, for pure tests, and XBT/USD's
 * AssetPairs entry (the fields the order rules read, plus status).
 */
import { dec, type PairInfo } from '../../src/core/index.js';
import { feeLadderOf } from '../../src/market/fees.js';

/** The simulator's default ladders (src/sim/defaults.ts): 0.25 % maker, 0.40 % taker at 0 volume. */
const FEE_LADDER = Object.freeze({
  maker: feeLadderOf([
    [0, 0.25],
    [10000, 0.2],
    [50000, 0.14],
  ]),
  taker: feeLadderOf([
    [0, 0.4],
    [10000, 0.35],
    [50000, 0.24],
  ]),
});

export const XBTUSD: PairInfo = Object.freeze({
  id: 'XXBTZUSD',
  altname: 'XBTUSD',
  base: 'XXBT',
  quote: 'ZUSD',
  tickSize: dec('0.1'),
  priceDecimals: 1,
  lotDecimals: 8,
  orderMin: dec('0.0001'),
  costMin: dec('0.5'),
  feeLadder: FEE_LADDER,
});

export const ETHUSD: PairInfo = Object.freeze({
  id: 'XETHZUSD',
  altname: 'ETHUSD',
  base: 'XETH',
  quote: 'ZUSD',
  tickSize: dec('0.01'),
  priceDecimals: 2,
  lotDecimals: 8,
  orderMin: dec('0.001'),
  costMin: undefined,
  feeLadder: FEE_LADDER,
});

export const XBTUSD_ENTRY = Object.freeze({
  altname: 'XBTUSD',
  wsname: 'XBT/USD',
  base: 'XXBT',
  quote: 'ZUSD',
  pair_decimals: 1,
  lot_decimals: 8,
  cost_decimals: 5,
  ordermin: '0.0001',
  costmin: '0.5',
  tick_size: '0.1',
  status: 'online',
});
