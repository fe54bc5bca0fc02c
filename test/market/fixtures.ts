/** Raw exchange answers for the pure tests of src/market, shaped as the client returns them. */
import { dec, type DataSource } from '../../src/core/index.js';
import { XBTUSD } from '../support/pairs.js';

export { ETHUSD, XBTUSD } from '../support/pairs.js';
import type { DepthBook, Order } from '../../src/exchange/index.js';
import {
  ladderFees,
  NO_ADVERSE_SELECTION,
  type SnapshotInput,
  type SourceInput,
} from '../../src/market/index.js';

export function depth(
  bids: readonly [string, string][],
  asks: readonly [string, string][],
): DepthBook {
  const level = ([price, volume]: [string, string]) => ({
    price,
    volume,
    timestamp: 1_700_000_000,
  });
  return { bids: bids.map(level), asks: asks.map(level) };
}

export function order(fields: {
  pair?: string;
  side?: 'buy' | 'sell';
  price?: string;
  vol?: string;
  volExec?: string;
  avg?: string;
  userref?: number | null;
  opentm?: number;
  oflags?: string;
  status?: string;
  closetm?: number;
}): Order {
  return {
    refid: null,
    userref: fields.userref ?? null,
    status: fields.status ?? 'open',
    opentm: fields.opentm ?? 1_700_000_000.5,
    ...(fields.closetm === undefined ? {} : { closetm: fields.closetm }),
    starttm: 0,
    expiretm: 0,
    descr: {
      pair: fields.pair ?? 'XBTUSD',
      type: fields.side ?? 'buy',
      ordertype: 'limit',
      price: fields.price ?? '100.0',
      price2: '0',
      leverage: 'none',
      order: 'summary',
      close: '',
    },
    vol: fields.vol ?? '1.00000000',
    vol_exec: fields.volExec ?? '0.00000000',
    cost: '0',
    fee: '0',
    price: fields.avg ?? '0',
    stopprice: '0',
    limitprice: '0',
    misc: '',
    oflags: fields.oflags ?? 'fciq',
  };
}

export const fresh = (receivedAtMs: number, staleAfterMs = 3000): SourceInput => ({
  enabled: true,
  receivedAtMs,
  lastError: undefined,
  staleAfterMs,
});

export function allFresh(nowMs: number): Record<DataSource, SourceInput> {
  return {
    depth: fresh(nowMs),
    groupedBook: fresh(nowMs),
    level3: fresh(nowMs),
    trades: fresh(nowMs),
    openOrders: fresh(nowMs),
    balance: fresh(nowMs),
  };
}

export const NOW = 1_700_000_100_000;

export function input(overrides: Partial<SnapshotInput> = {}): SnapshotInput {
  return {
    pair: XBTUSD,
    seq: 1,
    nowMs: NOW,
    instance: 5,
    depth: undefined,
    grouped: undefined,
    level3: undefined,
    trades: [],
    tradesKept: 200,
    openOrders: undefined,
    balances: undefined,
    mode: 'online',
    modeReason: undefined,
    sources: allFresh(NOW),
    fees: ladderFees(XBTUSD, dec(0), dec('0.4')),
    adverseSelection: NO_ADVERSE_SELECTION,
    ...overrides,
  };
}
