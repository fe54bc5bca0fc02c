/**
 * A matching engine on the default markets with a ManualClock, and terse order builders, for the
 * engine's unit and property tests.
 */
import { Decimal, ManualClock } from '../../../src/core/index.js';
import type { Tier } from '../../../src/exchange/limits/index.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from '../../../src/sim/defaults.js';
import { MatchingEngine } from '../../../src/sim/engine/matching-engine.js';
import type { OrderSpec, PriceSpec, PublicTrade, SimOrder } from '../../../src/sim/engine/types.js';
import { IdFactory } from '../../../src/sim/ids.js';
import { Markets, type SimPair } from '../../../src/sim/markets.js';
import { Accounts, type Account } from '../../../src/sim/state/accounts.js';
import { PERMISSIONS } from '../../../src/sim/state/permissions.js';

export const T0 = 1_700_000_000_000;

export interface Harness {
  readonly clock: ManualClock;
  readonly markets: Markets;
  readonly accounts: Accounts;
  readonly engine: MatchingEngine;
  readonly btc: SimPair;
  readonly eth: SimPair;
  readonly ethbtc: SimPair;
  /** Prints and book-change notifications the listeners received, in order. */
  readonly prints: PublicTrade[];
  readonly bookEvents: string[];
  /** Flip to simulate post_only / cancel_only / maintenance. */
  canTrade: boolean;
  readonly index: Map<string, Decimal>;
  account(key: string, balances?: Record<string, string>, tier?: Tier): Account;
  /** Moves the clock and runs the engine's timers. */
  advance(ms: number): Promise<void>;
}

export const RICH = { ZUSD: '1000000', XXBT: '100', XETH: '1000' };

export function harness(options: { userHistoryKept?: number } = {}): Harness {
  const clock = new ManualClock(T0);
  const ids = new IdFactory(7);
  const markets = new Markets(DEFAULT_ASSETS, DEFAULT_PAIRS);
  const accounts = new Accounts(ids, PERMISSIONS);
  const prints: PublicTrade[] = [];
  const bookEvents: string[] = [];
  const index = new Map<string, Decimal>();
  const h = {
    canTrade: true,
  } as { canTrade: boolean };
  const engine = new MatchingEngine({
    clock,
    ids,
    markets,
    accounts,
    listeners: { trade: (t) => prints.push(t), book: (p) => bookEvents.push(p.id) },
    canTrade: () => h.canTrade,
    indexPrice: (p) => index.get(p.id),
    ...options,
  });
  return Object.assign(h, {
    clock,
    markets,
    accounts,
    engine,
    btc: markets.pair('XXBTZUSD') as SimPair,
    eth: markets.pair('XETHZUSD') as SimPair,
    ethbtc: markets.pair('XETHXXBT') as SimPair,
    prints,
    bookEvents,
    index,
    account: (key: string, balances: Record<string, string> = RICH, tier?: Tier) =>
      accounts.upsert(
        { key, secret: 'c2VjcmV0', balances, ...(tier ? { tier } : {}) },
        clock.now(),
      ),
    advance: async (ms: number) => {
      await clock.advance(ms);
      engine.tick(clock.now());
    },
  });
}

/** `60000` absolute; `+10`, `-1.5%`, `#2` relative, as the wire writes them. */
export function px(text: string): PriceSpec {
  const m = /^([+\-#])?([0-9.]+)(%)?$/.exec(text);
  if (m === null) throw new Error(`bad price ${text}`);
  const amount = new Decimal(m[2] as string);
  if (m[1] === undefined) return { kind: 'abs', value: amount };
  return { kind: 'rel', op: m[1] as '+' | '-' | '#', amount, percent: m[3] === '%' };
}

export interface SpecInput {
  readonly pair: SimPair;
  readonly side: OrderSpec['side'];
  readonly type?: OrderSpec['ordertype'];
  readonly volume: string;
  readonly price?: string;
  readonly price2?: string;
  readonly displayvol?: string;
  readonly post?: boolean;
  readonly fcib?: boolean;
  readonly fciq?: boolean;
  readonly nompp?: boolean;
  readonly viqc?: boolean;
  readonly tif?: OrderSpec['timeinforce'];
  readonly starttmMs?: number;
  readonly expiretmMs?: number;
  readonly userref?: number;
  readonly stptype?: OrderSpec['stptype'];
  readonly trigger?: OrderSpec['trigger'];
  readonly close?: {
    ordertype: NonNullable<OrderSpec['close']>['ordertype'];
    price?: string;
    price2?: string;
  };
}

export function spec(i: SpecInput): OrderSpec {
  return {
    pair: i.pair,
    side: i.side,
    ordertype: i.type ?? 'limit',
    volume: new Decimal(i.volume),
    ...(i.displayvol === undefined ? {} : { displayvol: new Decimal(i.displayvol) }),
    ...(i.price === undefined ? {} : { price: px(i.price) }),
    ...(i.price2 === undefined ? {} : { price2: px(i.price2) }),
    trigger: i.trigger ?? 'last',
    flags: {
      post: i.post ?? false,
      fcib: i.fcib ?? false,
      fciq: i.fciq ?? false,
      nompp: i.nompp ?? false,
      viqc: i.viqc ?? false,
    },
    timeinforce: i.tif ?? 'GTC',
    starttmMs: i.starttmMs ?? 0,
    expiretmMs: i.expiretmMs ?? 0,
    userref: i.userref ?? 0,
    stptype: i.stptype ?? 'cancel-newest',
    ...(i.close === undefined
      ? {}
      : {
          close: {
            ordertype: i.close.ordertype,
            ...(i.close.price === undefined ? {} : { price: px(i.close.price) }),
            ...(i.close.price2 === undefined ? {} : { price2: px(i.close.price2) }),
          },
        }),
    reduceOnly: false,
  };
}

/** Book side as `price:qty` strings, best first. */
export function levels(h: Harness, pair: SimPair, side: 'bids' | 'asks'): string[] {
  return h.engine.book(pair)[side].map((e) => `${e.price.toFixed()}:${e.qty.toFixed()}`);
}

export function str(d: Decimal | undefined): string | undefined {
  return d?.toFixed();
}

export function statusOf(o: SimOrder): string {
  return o.reason === undefined ? o.status : `${o.status}:${o.reason}`;
}

/** Runs `fn` and returns the SimError string it threw. */
export function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof Error && 'errorString' in err) return String(err.errorString);
    throw err;
  }
  throw new Error('expected a SimError, nothing was thrown');
}

/**
 * Makes a print at `price` between two accounts of their own ('print-s' sells, 'print-b' buys).
 * The sell rests first, so the buy takes it at exactly `price` unless better asks rest below.
 */
export function printAt(h: Harness, pair: SimPair, price: string, volume = '0.01'): void {
  const s = h.accounts.get('print-s') ?? h.account('print-s');
  const b = h.accounts.get('print-b') ?? h.account('print-b');
  h.engine.place(s, spec({ pair, side: 'sell', volume, price }));
  h.engine.place(b, spec({ pair, side: 'buy', volume, price }));
}
