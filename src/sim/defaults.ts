/**
 * The markets a simulator starts with when its config names none: the exchange's conventions for
 * ids (X-prefixed crypto, Z-prefixed fiat), altnames and wsnames, and its published-style fee
 * ladders. Plain data so the config schema can use it as its default.
 */
const TAKER = [
  [0, 0.4],
  [10000, 0.35],
  [50000, 0.24],
  [100000, 0.22],
  [250000, 0.2],
  [500000, 0.18],
  [1000000, 0.16],
] as [number, number][];
const MAKER = [
  [0, 0.25],
  [10000, 0.2],
  [50000, 0.14],
  [100000, 0.12],
  [250000, 0.1],
  [500000, 0.08],
  [1000000, 0.06],
] as [number, number][];

export const DEFAULT_ASSETS = [
  { id: 'XXBT', altname: 'XBT', decimals: 10, display_decimals: 5, collateral_value: 1 },
  { id: 'XETH', altname: 'ETH', decimals: 10, display_decimals: 5, collateral_value: 1 },
  { id: 'ZUSD', altname: 'USD', decimals: 4, display_decimals: 2, collateral_value: 1 },
];

export const DEFAULT_PAIRS = [
  {
    id: 'XXBTZUSD',
    altname: 'XBTUSD',
    wsname: 'XBT/USD',
    base: 'XXBT',
    quote: 'ZUSD',
    pair_decimals: 1,
    lot_decimals: 8,
    cost_decimals: 5,
    ordermin: '0.00005',
    costmin: '0.5',
    tick_size: '0.1',
    fees: TAKER,
    fees_maker: MAKER,
    initial_price: '60000',
  },
  {
    id: 'XETHZUSD',
    altname: 'ETHUSD',
    wsname: 'ETH/USD',
    base: 'XETH',
    quote: 'ZUSD',
    pair_decimals: 2,
    lot_decimals: 8,
    cost_decimals: 5,
    ordermin: '0.002',
    costmin: '0.5',
    tick_size: '0.01',
    fees: TAKER,
    fees_maker: MAKER,
    initial_price: '3000',
  },
  {
    id: 'XETHXXBT',
    altname: 'ETHXBT',
    wsname: 'ETH/XBT',
    base: 'XETH',
    quote: 'XXBT',
    pair_decimals: 5,
    lot_decimals: 8,
    cost_decimals: 10,
    ordermin: '0.002',
    costmin: '0.00002',
    tick_size: '0.00001',
    fees: TAKER,
    fees_maker: MAKER,
    initial_price: '0.05',
  },
];
