import { ManualClock, dec } from '../../../src/core/index.js';
import type { SimContext } from '../../../src/sim/context.js';
import { parseSimConfig } from '../../../src/sim/config.js';
import type { BookEntry, BookView, PublicTrade, Side } from '../../../src/sim/engine/types.js';
import { MarketRecorder } from '../../../src/sim/market-data/recorder.js';
import { Markets, type SimPair } from '../../../src/sim/markets.js';
import { StatusBoard } from '../../../src/sim/state/status.js';

/**
 * A book the test writes directly, standing in for the matching engine where only `book` is
 * read (the recorder's spread sampler and the market-data routes).
 */
export class StubBook {
  readonly #books = new Map<string, { bids: BookEntry[]; asks: BookEntry[] }>();
  #seq = 0;

  book(pair: SimPair): BookView {
    return this.#side(pair);
  }

  /** Adds a resting order; keeps each side best first, then time priority. */
  rest(pair: SimPair, side: Side, price: string, qty: string, timestampNs: bigint): BookEntry {
    this.#seq += 1;
    const entry: BookEntry = {
      txid: `O${String(this.#seq).padStart(5, '0')}-STUB0-ORDERS`,
      accountKey: 'k',
      price: dec(price),
      qty: dec(qty),
      timestampNs,
    };
    const book = this.#side(pair);
    const list = side === 'buy' ? book.bids : book.asks;
    list.push(entry);
    list.sort((a, b) => {
      const byPrice = side === 'buy' ? b.price.comparedTo(a.price) : a.price.comparedTo(b.price);
      return byPrice !== 0 ? byPrice : a.timestampNs < b.timestampNs ? -1 : 1;
    });
    return entry;
  }

  clear(pair: SimPair): void {
    this.#books.delete(pair.id);
  }

  #side(pair: SimPair): { bids: BookEntry[]; asks: BookEntry[] } {
    let b = this.#books.get(pair.id);
    if (b === undefined) {
      b = { bids: [], asks: [] };
      this.#books.set(pair.id, b);
    }
    return b;
  }
}

export interface StubMarket {
  readonly clock: ManualClock;
  readonly markets: Markets;
  readonly book: StubBook;
  readonly recorder: MarketRecorder;
  readonly ctx: SimContext;
  readonly xbt: SimPair;
  print(price: string, volume: string, side?: Side, atMs?: number): PublicTrade;
}

/** 2023-11-14T22:13:20Z, a ManualClock's default start. */
export const T0 = 1_700_000_000_000;

export function stubMarket(startMs = T0): StubMarket {
  const clock = new ManualClock(startMs);
  const config = parseSimConfig({ background: { enabled: false } });
  const markets = new Markets(config.assets, config.pairs);
  const book = new StubBook();
  const recorder = new MarketRecorder(markets, book, clock);
  const status = new StatusBoard();
  const ctx = { clock, config, markets, engine: book, history: recorder, status };
  const xbt = markets.requirePair('XXBTZUSD');
  let tradeId = 0;
  return {
    clock,
    markets,
    book,
    recorder,
    ctx: ctx as unknown as SimContext,
    xbt,
    print(price, volume, side = 'buy', atMs = clock.now()) {
      tradeId += 1;
      const t: PublicTrade = {
        tradeId,
        pair: xbt,
        price: dec(price),
        volume: dec(volume),
        timeMs: atMs,
        side,
        ordertype: 'l',
        misc: '',
      };
      recorder.onTrade(t);
      return t;
    },
  };
}
