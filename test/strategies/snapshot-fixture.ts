/**
 * Builds a frozen MarketSnapshot from the few fields a strategy test cares about; every other
 * field gets a value a healthy, online market would have. Derived fields (best prices, mid,
 * microprice, spread, inventory value and base share) are computed the way src/market defines
 * them, so a test states the book and the balances and nothing else.
 */
import {
  dec,
  DATA_SOURCES,
  type DataSource,
  type MarketSnapshot,
  type PairInfo,
  type PriceLevel,
  type SourceStatus,
  type TradingMode,
} from '../../src/core/index.js';
import { XBTUSD } from '../support/pairs.js';

export interface SnapshotFields {
  /** Best first: `[price, volume]` decimal strings; volume defaults to '1'. */
  readonly bids?: readonly (readonly [string, string?])[];
  readonly asks?: readonly (readonly [string, string?])[];
  /** Base and quote totals; available equals total. */
  readonly base?: string;
  readonly quote?: string;
  readonly takenAtMs?: number;
  readonly seq?: number;
  /** Overrides the computed microprice; null means the snapshot has none. */
  readonly microprice?: string | null;
  readonly tickSize?: string;
  readonly mode?: TradingMode;
  readonly staleSources?: readonly DataSource[];
  /** The book as the exchange shows it, our orders included; default the same as bids/asks. */
  readonly venueBids?: readonly (readonly [string, string?])[];
  readonly venueAsks?: readonly (readonly [string, string?])[];
  /** The key's maker fee in bps (default 25, the simulator's starter rung); taker 40. */
  readonly makerFeeBps?: string;
  /** Measured adverse selection in bps (default 0, no fill yet) and its fill count. */
  readonly adverseBps?: string;
  readonly adverseFills?: number;
  readonly trades?: MarketSnapshot['trades'];
  readonly queue?: MarketSnapshot['queue'];
}

export const PAIR: PairInfo = XBTUSD;

export function snapshot(fields: SnapshotFields = {}): MarketSnapshot {
  const takenAtMs = fields.takenAtMs ?? 1_700_000_000_000;
  const pair: PairInfo =
    fields.tickSize === undefined
      ? PAIR
      : Object.freeze({ ...PAIR, tickSize: dec(fields.tickSize) });
  const bids = levels(fields.bids ?? [['99.9'], ['99.8']]);
  const asks = levels(fields.asks ?? [['100.1'], ['100.2']]);
  const top = { bid: bids[0], ask: asks[0] };
  const bestBid = top.bid?.price;
  const bestAsk = top.ask?.price;
  const mid =
    bestBid !== undefined && bestAsk !== undefined ? bestBid.plus(bestAsk).div(2) : undefined;
  const microprice =
    fields.microprice === null
      ? undefined
      : fields.microprice !== undefined
        ? dec(fields.microprice)
        : top.bid !== undefined && top.ask !== undefined
          ? top.bid.price
              .times(top.ask.volume)
              .plus(top.ask.price.times(top.bid.volume))
              .div(top.bid.volume.plus(top.ask.volume))
          : undefined;

  const base = dec(fields.base ?? '0');
  const quote = dec(fields.quote ?? '0');
  const valueInQuote = mid === undefined ? undefined : base.times(mid).plus(quote);
  const baseShare =
    mid === undefined || valueInQuote === undefined || valueInQuote.isZero()
      ? undefined
      : base.times(mid).div(valueInQuote);

  const staleSources = fields.staleSources ?? [];
  const sources = Object.fromEntries(
    DATA_SOURCES.map((source): [DataSource, SourceStatus] => {
      const stale = staleSources.includes(source);
      return [
        source,
        Object.freeze({
          receivedAtMs: stale ? takenAtMs - 60_000 : takenAtMs,
          ageMs: stale ? 60_000 : 0,
          stale,
          staleAfterMs: 30_000,
          lastError: undefined,
        }),
      ];
    }),
  ) as Record<DataSource, SourceStatus>;

  const book = Object.freeze({ bids, asks });
  const venueBook =
    fields.venueBids === undefined && fields.venueAsks === undefined
      ? book
      : Object.freeze({
          bids: fields.venueBids === undefined ? bids : levels(fields.venueBids),
          asks: fields.venueAsks === undefined ? asks : levels(fields.venueAsks),
        });
  return Object.freeze({
    pair,
    seq: fields.seq ?? 1,
    takenAtMs,
    book,
    venueBook,
    grouped: undefined,
    level3: undefined,
    bestBid,
    bestAsk,
    mid,
    microprice,
    spread: bestBid !== undefined && bestAsk !== undefined ? bestAsk.minus(bestBid) : undefined,
    trades: fields.trades ?? Object.freeze([]),
    openOrders: Object.freeze([]),
    ordersAsOfMs: undefined,
    vanishedOrders: Object.freeze([]),
    bookAsOfMs: undefined,
    inventory: Object.freeze({
      base: Object.freeze({ total: base, available: base }),
      quote: Object.freeze({ total: quote, available: quote }),
      valueInQuote,
      baseShare,
    }),
    fees: Object.freeze({
      makerBps: dec(fields.makerFeeBps ?? '25'),
      takerBps: dec('40'),
      source: 'ladder' as const,
      volumeUsd: dec(0),
    }),
    adverseSelection: Object.freeze({
      bps: dec(fields.adverseBps ?? '0'),
      horizonMs: 10_000,
      fills: fields.adverseFills ?? (fields.adverseBps === undefined ? 0 : 20),
    }),
    queue: fields.queue ?? Object.freeze([]),
    mode: fields.mode ?? 'online',
    modeReason: undefined,
    sources: Object.freeze(sources),
    stale: staleSources.length > 0,
    staleSources: Object.freeze([...staleSources]),
  });
}

function levels(rows: readonly (readonly [string, string?])[]): readonly PriceLevel[] {
  return Object.freeze(
    rows.map(([price, volume]) => Object.freeze({ price: dec(price), volume: dec(volume ?? '1') })),
  );
}
