import { Decimal, TimerQueue } from '../../core/index.js';
import type { Side } from '../../sim/engine/types.js';
import type { Markets, SimPair } from '../../sim/markets.js';
import { SYSTEM_MODES, type SystemMode } from '../../sim/state/status.js';
import type { RecordedRow } from '../../recording/format.js';
import type {
  RecordedLevel,
  RecordedMarket,
  RecordedOrder,
  RecordedTrade,
} from './recorded-market.js';

/** One change to the market at one instant of the recording. */
export interface MarketEvent {
  readonly atMs: number;
  apply(): void;
}

/** Rows the replay read, used and skipped, for the summary. */
export interface EventCounts {
  rows: number;
  /** Answers that were an error, or whose body is not what the endpoint returns. */
  unusable: number;
  /** Trades seen in an earlier poll (polls overlap). */
  duplicateTrades: number;
  /** Trades from before the replay's start (the first poll's history). */
  tradesBeforeStart: number;
}

/**
 * Turns recorded rows into market events at the exchange time each describes: a book or status
 * answer at the middle of its request (the best guess of when the exchange took it), each trade at
 * its own time. Rows arrive in receive order, and a Trades answer holds prints from up to the
 * feed's lag limit before it was received (a poll follows the tape's cursor and may catch up on a
 * burst over a few polls), so rows are read `lookaheadMs` ahead of the clock. Answers follow one
 * another on the tape, but a restarted recorder's first answer, or a second recording process,
 * reaches back over trades already applied: a trade is applied once, by its id.
 */
export class RecordedEvents {
  readonly #rows: AsyncIterator<RecordedRow>;
  readonly #markets: Markets;
  readonly #market: RecordedMarket;
  readonly #lookaheadMs: number;
  readonly #startMs: number;
  readonly #endMs: number;
  readonly #events = new TimerQueue<MarketEvent>();
  readonly #lastTradeId = new Map<string, number>();
  /** The recording holds the bot's own view of its orders (OwnOrders rows). */
  #ownRecorded = false;
  #readUpToMs = -Infinity;
  #exhausted = false;
  readonly counts: EventCounts = {
    rows: 0,
    unusable: 0,
    duplicateTrades: 0,
    tradesBeforeStart: 0,
  };

  constructor(options: {
    rows: AsyncIterable<RecordedRow>;
    markets: Markets;
    market: RecordedMarket;
    startMs: number;
    endMs: number;
    lookaheadMs: number;
  }) {
    this.#rows = options.rows[Symbol.asyncIterator]();
    this.#markets = options.markets;
    this.#market = options.market;
    this.#startMs = options.startMs;
    this.#endMs = options.endMs;
    this.#lookaheadMs = options.lookaheadMs;
  }

  /** The next event, having read rows far enough ahead of `nowMs` to know it is the next. */
  async peek(nowMs: number): Promise<MarketEvent | undefined> {
    while (!this.#exhausted && this.#readUpToMs <= nowMs + this.#lookaheadMs) {
      const next = await this.#rows.next();
      if (next.done === true) {
        this.#exhausted = true;
        break;
      }
      const row = next.value;
      if (row.receivedMs > this.#endMs) {
        this.#exhausted = true;
        break;
      }
      this.#readUpToMs = row.receivedMs;
      if (row.receivedMs < this.#startMs) continue;
      this.counts.rows += 1;
      this.#take(row, nowMs);
    }
    return this.#events.peek()?.item;
  }

  shift(): MarketEvent | undefined {
    return this.#events.pop();
  }

  #take(row: RecordedRow, nowMs: number): void {
    if (row.body === undefined) {
      this.counts.unusable += 1;
      return;
    }
    const atMs = Math.max(nowMs, Math.round((row.askedMs + row.receivedMs) / 2));
    try {
      if (row.endpoint === 'BookUpdate') {
        // Not an exchange answer: no envelope (format.ts).
        const pair = this.#pair(row.pair);
        const update = JSON.parse(row.body) as { snapshot?: unknown; bids: unknown; asks: unknown };
        const bids = levels(update.bids);
        const asks = levels(update.asks);
        const snapshot = update.snapshot === true;
        this.#push(atMs, () => this.#market.applyBookUpdate(pair, bids, asks, snapshot));
        return;
      }
      const result = resultOf(row.body);
      switch (row.endpoint) {
        case 'Depth': {
          const pair = this.#pair(row.pair);
          const book = firstValue(result) as { bids: unknown; asks: unknown };
          const bids = levels(book.bids);
          const asks = levels(book.asks);
          this.#push(atMs, () => this.#market.applyDepth(pair, bids, asks));
          return;
        }
        case 'Trades':
          this.#trades(this.#pair(row.pair), firstValue(result), nowMs);
          return;
        case 'SystemStatus': {
          const status = (result as { status?: unknown }).status;
          if (!SYSTEM_MODES.includes(status as SystemMode)) throw new Error('status');
          this.#push(atMs, () => this.#market.setMode(status as SystemMode));
          return;
        }
        case 'OpenOrders': {
          // Once the bot's own view is recorded, the exchange's staler one is not used.
          if (this.#ownRecorded) return;
          const own = this.#ownOrders(result);
          this.#push(atMs, () => this.#market.setOwnOrders(own));
          return;
        }
        case 'OwnOrders': {
          const pair = this.#pair(row.pair);
          this.#ownRecorded = true;
          const own = this.#ownOrders(result);
          this.#push(atMs, () => this.#market.setOwnOrders(own, pair));
          return;
        }
        case 'Level3': {
          const pair = this.#pair(row.pair);
          const book = result as { bids: unknown; asks: unknown };
          const bids = orders(book.bids);
          const asks = orders(book.asks);
          this.#push(atMs, () => this.#market.applyLevel3(pair, bids, asks));
          return;
        }
        default:
          // GroupedBook is served from the engine's book; AssetPairs set the pairs up; a
          // TradesGap is the reader's to report.
          return;
      }
    } catch {
      this.counts.unusable += 1;
    }
  }

  #trades(pair: SimPair, rows: unknown, nowMs: number): void {
    if (!Array.isArray(rows)) throw new Error('trades');
    let lastId = this.#lastTradeId.get(pair.id) ?? -Infinity;
    for (const r of rows as unknown[][]) {
      const id = Number(r[6]);
      if (id <= lastId) {
        this.counts.duplicateTrades += 1;
        continue;
      }
      lastId = id;
      const timeMs = Math.round(Number(r[2]) * 1000);
      if (timeMs < this.#startMs) {
        this.counts.tradesBeforeStart += 1;
        continue;
      }
      const trade: RecordedTrade = {
        price: new Decimal(String(r[0])),
        volume: new Decimal(String(r[1])),
        side: r[3] === 'b' ? 'buy' : 'sell',
      };
      this.#push(Math.max(nowMs, timeMs), () => this.#market.applyTrade(pair, trade));
    }
    this.#lastTradeId.set(pair.id, lastId);
  }

  #ownOrders(result: unknown) {
    const open = (result as { open?: Record<string, OpenOrderBody> }).open ?? {};
    const out: { id: string; pair: SimPair; side: Side; price: Decimal; volume: Decimal }[] = [];
    for (const [id, o] of Object.entries(open)) {
      const pair = this.#markets.pair(o.descr.pair);
      if (pair === undefined || o.descr.ordertype !== 'limit') continue;
      out.push({
        id,
        pair,
        side: o.descr.type,
        price: new Decimal(o.descr.price),
        volume: new Decimal(o.vol).minus(o.vol_exec),
      });
    }
    return out;
  }

  #pair(name: string | undefined): SimPair {
    const pair = name === undefined ? undefined : this.#markets.pair(name);
    if (pair === undefined) throw new Error('pair');
    return pair;
  }

  #push(atMs: number, apply: () => void): void {
    this.#events.push(atMs, { atMs, apply });
  }
}

interface OpenOrderBody {
  readonly descr: { pair: string; type: Side; ordertype: string; price: string };
  readonly vol: string;
  readonly vol_exec: string;
}

/** The envelope's result; an answer carrying an error is of no use to the market. */
function resultOf(body: string): unknown {
  const parsed = JSON.parse(body) as { error?: unknown[]; result?: unknown };
  if ((parsed.error?.length ?? 0) > 0 || parsed.result === undefined) throw new Error('error');
  return parsed.result;
}

/** Depth and Trades key their answer by the pair's id; the first entry is it (`last` follows). */
function firstValue(result: unknown): unknown {
  const first = Object.values(result as Record<string, unknown>)[0];
  if (first === undefined) throw new Error('empty');
  return first;
}

/** Level3 entries; their nanosecond timestamps are not needed (the list is in queue order). */
function orders(rows: unknown): RecordedOrder[] {
  if (!Array.isArray(rows)) throw new Error('orders');
  return (rows as { price: unknown; qty: unknown; order_id: unknown }[]).map((r) => ({
    id: String(r.order_id),
    price: new Decimal(String(r.price)),
    volume: new Decimal(String(r.qty)),
  }));
}

function levels(rows: unknown): RecordedLevel[] {
  if (!Array.isArray(rows)) throw new Error('levels');
  return (rows as unknown[][]).map((r) => ({
    price: new Decimal(String(r[0])),
    volume: new Decimal(String(r[1])),
  }));
}
