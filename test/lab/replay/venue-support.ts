import { DEFAULT_QUEUE_RULE, type QueueRule } from '../../../src/market/index.js';
import { Decimal } from '../../../src/core/index.js';
import { InProcessNonceSource, SpotClient } from '../../../src/exchange/index.js';
import {
  ReplayClock,
  isRecordedKey,
  createReplayVenue,
  type ReplayVenue,
} from '../../../src/lab/replay/index.js';
import { limitSpec } from '../../../src/sim/engine/limit-spec.js';
import type { Side } from '../../../src/sim/engine/types.js';
import type { SimPair } from '../../../src/sim/markets.js';
import type { Account } from '../../../src/sim/state/accounts.js';

export const START_MS = Date.UTC(2026, 10, 1);
const KEY = 'replay-test-key';
const SECRET = Buffer.from('replay-test-secret-0123456789abcdef').toString('base64');

export interface TestVenue {
  readonly venue: ReplayVenue;
  readonly clock: ReplayClock;
  readonly pair: SimPair;
  /** The bot's account at the replay's exchange. */
  readonly ours: Account;
  /** Places our limit order on the engine, as AddOrder would. */
  place(side: Side, price: string, volume: string): string;
  /** A bid or ask queue at one price: who holds each place, and how much. */
  queue(side: Side, price: string): string[];
  /** Our fills so far: `side volume@price`. */
  fills(): string[];
  client(): SpotClient;
}

/** A replay venue for XBTUSD with an empty book, the recorded market and our account. */
export function testVenue(
  options: { latencyMs?: number; tier?: string; queueRule?: QueueRule } = {},
): TestVenue {
  const clock = new ReplayClock(START_MS);
  const venue = createReplayVenue({
    scan: {
      rows: 1,
      firstMs: START_MS,
      lastMs: START_MS,
      pairs: ['XBTUSD'],
      pairLastMs: new Map([['XBTUSD', START_MS]]),
      assetPairs: undefined,
      firstMid: new Map([['XBTUSD', '60000']]),
      roundTripMs: undefined,
    },
    pairs: ['XBTUSD'],
    account: {
      key: KEY,
      secret: SECRET,
      tier: options.tier ?? 'starter',
      balances: { ZUSD: '10000000', XXBT: '100' },
      nonceWindow: 0,
    },
    clock,
    latencyMs: options.latencyMs ?? 0,
    queueRule: options.queueRule ?? DEFAULT_QUEUE_RULE,
  });
  const pair = venue.ctx.markets.requirePair('XBTUSD');
  const ours = venue.ctx.accounts.get(KEY) as Account;
  return {
    venue,
    clock,
    pair,
    ours,
    place: (side, price, volume) =>
      venue.ctx.engine.place(
        ours,
        limitSpec(pair, side, new Decimal(volume), new Decimal(price), 'GTC'),
      ).txid,
    queue: (side, price) =>
      (side === 'buy' ? venue.ctx.engine.book(pair).bids : venue.ctx.engine.book(pair).asks)
        .filter((e) => e.price.eq(price))
        .map((e) => {
          const who = isRecordedKey(e.accountKey)
            ? 'recorded'
            : e.accountKey === KEY
              ? 'ours'
              : e.accountKey;
          return `${who} ${e.qty.toFixed()}`;
        }),
    fills: () =>
      venue.ctx.engine.trades(ours).map((t) => `${t.side} ${t.vol.toFixed()}@${t.price.toFixed()}`),
    client: () =>
      new SpotClient({
        baseUrl: 'http://replay.invalid',
        credentials: { apiKey: KEY, apiSecret: SECRET },
        tier: options.tier ?? 'starter',
        nonceSource: new InProcessNonceSource({ clock }),
        clock,
        transport: venue.transport,
      }),
  };
}

export function recordedOrders(...list: [string, string, string][]) {
  return list.map(([id, price, volume]) => ({
    id,
    price: new Decimal(price),
    volume: new Decimal(volume),
  }));
}

export function levels(...pairs: [string, string][]) {
  return pairs.map(([price, volume]) => ({
    price: new Decimal(price),
    volume: new Decimal(volume),
  }));
}
