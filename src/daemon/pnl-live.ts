import type { ControlFlags } from '../bus/index.js';
import {
  dec,
  errorMessage,
  type AdverseSelection,
  every,
  type Clock,
  type Decimal,
  type Log,
  type PairInfo,
} from '../core/index.js';
import { type RatecountStore } from '../executor/index.js';
import { isOurResting, type TrackedOrder } from '../orders/index.js';
import {
  PairPnl,
  summaryJson,
  type FillRecord,
  type PnlSummaryJson,
  type QuoteSides,
} from '../pnl/index.js';
import type { TickReport } from '../runner/runner.js';
import type { FillEvent } from '../runner/strategy-api.js';
import type { PnlMetrics } from './pnl-metrics.js';
import { quotingJson, type QuotingJson } from './quoting.js';
import { SerialRuns } from './serial-runs.js';

/** What the runner reports under `status:pnl` in Redis, for /status and `makerd status`. */
export interface PnlReport {
  /** The split counts from here: when this runner started (not the tracker's first fill). */
  readonly sinceMs: number;
  /** Per pair altname. */
  readonly pairs: Readonly<Record<string, PnlSummaryJson>>;
  /** Per pair altname: fees, the half-spread floor, the strategy's model, our queue places. */
  readonly quoting?: Readonly<Record<string, QuotingJson>>;
}

/** The markout horizon and the number of newest fills adverse selection is measured over. */
const ADVERSE_HORIZON_MS = 10_000;
const ADVERSE_WINDOW = 50;

/** Name of the runner's PnL report among the roles' status reports. */
export const PNL_REPORT = 'pnl';
/**
 * A change of orders only (a requote) publishes the report at most this often; a fill publishes
 * it at once. Every tracker write is a change, several a second while quoting, and the report is
 * every pair's summary as JSON: built at each it was the replay's largest share of PnL time.
 */
const ORDERS_REPORT_EVERY_MS = 1_000;

export interface LivePnlParts {
  readonly pairs: readonly PairInfo[];
  /** Base held per pair when counting starts (the tracker's position then). */
  readonly openingBase: (pairId: string) => Decimal;
  readonly orders: { live(pair: string): Promise<TrackedOrder[]> };
  readonly ratecount: Pick<RatecountStore, 'level' | 'limits'>;
  readonly flags: Pick<ControlFlags, 'report'>;
  readonly metrics: PnlMetrics;
  readonly clock: Clock;
  /**
   * How often every pair's resting orders and ratecount are read and the report published, as
   * the fallback to changed() (and to keep the report within its ttl).
   */
  readonly everyMs: number;
  /** How long a report stays readable without a newer one. */
  readonly reportTtlMs: number;
  readonly log: Log;
  /** A replay's report wants every fill and finer charts than /status does. */
  readonly replay?: ReplayPnlHooks;
}

export interface ReplayPnlHooks {
  /** Each fill once its markouts are known (PairPnl's onFillSettled), with its pair id. */
  readonly onFillSettled: (pairId: string, record: FillRecord) => void;
  /** One chart point per this many ms at first (PairPnl's seriesEveryMs). */
  readonly seriesEveryMs: number;
}

interface Book {
  readonly pair: PairInfo;
  readonly pnl: PairPnl;
  resting: QuoteSides;
  target: QuoteSides;
  /** The last tick that quoted (or the first tick): what /status shows the quotes held to. */
  quoted: TickReport | undefined;
}

/**
 * The runner role's PnL attribution: mids and the strategy's targets from each tick, fills from
 * the tracker, our resting orders and the ratecount read when changed() says the tracker wrote a
 * pair, and for every pair every `everyMs`. Counting starts when the runner starts; what the
 * tracker held then enters at the first mid. A failure here is logged and never reaches the
 * trading path.
 */
export class LivePnl {
  readonly sinceMs: number;
  readonly #parts: LivePnlParts;
  readonly #books = new Map<string, Book>();
  readonly #stop = new AbortController();
  readonly #runs = new SerialRuns();
  /** A fill came since the report was last published: the next refresh publishes it. */
  #fillsUnreported = false;
  #reportedAtMs = -Infinity;
  readonly #ordersListeners: ((pair: PairInfo, live: readonly TrackedOrder[]) => void)[] = [];
  #loop: Promise<void> | undefined;
  #warned = false;

  constructor(parts: LivePnlParts) {
    this.#parts = parts;
    this.sinceMs = parts.clock.now();
    for (const pair of parts.pairs) {
      const replay = parts.replay;
      const pnl = new PairPnl({
        openingBase: parts.openingBase(pair.id),
        ...(replay === undefined
          ? {}
          : {
              seriesEveryMs: replay.seriesEveryMs,
              onFillSettled: (record) => replay.onFillSettled(pair.id, record),
            }),
      });
      this.#books.set(pair.id, {
        pair,
        pnl,
        resting: {},
        target: {},
        quoted: undefined,
      });
    }
  }

  /**
   * The adverse selection of the pair's newest fills (10 s markouts, at most the last 50): what a
   * quote's half-spread must cover beyond the fee. Before any fill has a 10 s markout, none.
   */
  adverseSelection(pairId: string): AdverseSelection | undefined {
    return this.#books.get(pairId)?.pnl.adverseSelection(ADVERSE_HORIZON_MS, ADVERSE_WINDOW);
  }

  /** The attribution of one pair (by id), for a replay's report. */
  pairPnl(pairId: string): PairPnl | undefined {
    return this.#books.get(pairId)?.pnl;
  }

  tick(report: TickReport): void {
    this.#guard(() => {
      const book = this.#books.get(report.pair);
      if (book === undefined) return;
      const { snapshot } = report;
      if (snapshot.mid !== undefined) book.pnl.mid(snapshot.takenAtMs, snapshot.mid);
      book.target = best(report.targets);
      book.pnl.quotes(this.#parts.clock.now(), book.resting, book.target);
      // Kept as is: its JSON is built once a second, by the refresh, not at every tick.
      if (report.outcome === 'quoted' || book.quoted === undefined) book.quoted = report;
    });
  }

  fill(fill: FillEvent): void {
    this.#fillsUnreported = true;
    this.#guard(() => {
      const book = this.#books.get(fill.pair);
      // A base fee (only on adopted orders: makerd asks for quote fees) is valued at the price.
      const fee = fill.feeIn === 'quote' ? fill.fee : fill.fee.times(fill.price);
      book?.pnl.fill({
        atMs: fill.timeMs,
        side: fill.side,
        price: fill.price,
        volume: fill.volume,
        fee,
        id: fill.txid,
      });
    });
  }

  /**
   * Each pair's live orders as read after a change and every `everyMs` (a recording daemon writes
   * them down, the console lists them, the snapshot takes them out of the book).
   */
  onOrders(listener: (pair: PairInfo, live: readonly TrackedOrder[]) => void): void {
    this.#ordersListeners.push(listener);
  }

  start(): void {
    this.#loop = every(
      this.#parts.clock,
      this.#parts.everyMs,
      this.#stop.signal,
      () => this.refresh(),
      (err) => this.#parts.log.warn({ err: errorMessage(err) }, 'PnL refresh failed'),
    );
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    await this.#runs.idle();
  }

  /**
   * The tracker wrote the pair (by id): its orders and ratecount are read and the report
   * published, after the refreshes already queued. A failure is logged; the next message or the
   * fallback refresh reads again.
   */
  changed(pairId: string): void {
    const book = this.#books.get(pairId);
    if (book === undefined || this.#stop.signal.aborted) return;
    this.#runs
      .run(pairId, () => this.#refresh([book], false))
      .catch((err: unknown) =>
        this.#parts.log.warn({ err: errorMessage(err) }, 'PnL refresh failed'),
      );
  }

  /** Reads every pair's resting orders and ratecount, then publishes the report and the gauges. */
  refresh(): Promise<void> {
    return this.#runs.run('*', () => this.#refresh([...this.#books.values()], true));
  }

  async #refresh(books: readonly Book[], publish: boolean): Promise<void> {
    const { orders, ratecount, clock } = this.#parts;
    // Every pair's reads at once: one round trip of Redis, not one per pair.
    const reads = await Promise.all(
      books.map(async (book) => {
        const id = book.pair.id;
        const [live, level] = await Promise.all([
          orders.live(id),
          ratecount.level(id, clock.now()),
        ]);
        return { book, live, level };
      }),
    );
    for (const { book, live, level } of reads) {
      const now = clock.now();
      for (const listener of this.#ordersListeners) listener(book.pair, live);
      book.resting = restingOf(live);
      book.pnl.quotes(now, book.resting, book.target);
      book.pnl.ratecount(now, level.level, ratecount.limits.max);
    }
    const now = clock.now();
    if (!publish && !this.#fillsUnreported && now - this.#reportedAtMs < ORDERS_REPORT_EVERY_MS) {
      return;
    }
    this.#fillsUnreported = false;
    this.#reportedAtMs = now;
    const report = this.report();
    for (const [pair, summary] of Object.entries(report.pairs)) {
      this.#parts.metrics.observe(pair, summary);
    }
    for (const book of this.#books.values()) {
      const quoting = report.quoting?.[book.pair.altname];
      if (quoting === undefined || book.quoted === undefined) continue;
      this.#parts.metrics.observeQuoting(book.pair.altname, book.quoted.strategy, quoting);
    }
    await this.#parts.flags.report(PNL_REPORT, report, this.#parts.reportTtlMs);
  }

  report(): PnlReport {
    const books = [...this.#books.values()];
    return {
      sinceMs: this.sinceMs,
      pairs: Object.fromEntries(books.map((b) => [b.pair.altname, summaryJson(b.pnl.summary())])),
      quoting: Object.fromEntries(
        books.flatMap((b) =>
          b.quoted === undefined ? [] : [[b.pair.altname, quotingJson(b.quoted)]],
        ),
      ),
    };
  }

  #guard(work: () => void): void {
    try {
      work();
    } catch (err) {
      if (this.#warned) return;
      this.#warned = true;
      this.#parts.log.warn({ err: errorMessage(err) }, 'PnL attribution failed (said once)');
    }
  }
}

/** Innermost price per side: the highest bid and the lowest ask. */
function best(quotes: readonly { side: 'buy' | 'sell'; price: Decimal }[]): QuoteSides {
  let bid: Decimal | undefined;
  let ask: Decimal | undefined;
  for (const q of quotes) {
    if (q.side === 'buy' && (bid === undefined || q.price.gt(bid))) bid = q.price;
    if (q.side === 'sell' && (ask === undefined || q.price.lt(ask))) ask = q.price;
  }
  return { bid, ask };
}

/** Our own orders resting on the book, innermost per side. */
function restingOf(orders: readonly TrackedOrder[]): QuoteSides {
  return best(orders.filter(isOurResting).map((o) => ({ side: o.side, price: dec(o.price) })));
}
