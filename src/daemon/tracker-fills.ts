import {
  Decimal,
  dec,
  errorMessage,
  every,
  type Clock,
  type Log,
  type PairInfo,
} from '../core/index.js';
import type { OrderTracker } from '../orders/index.js';
import type { FillSource } from '../runner/ports.js';
import type { FillEvent } from '../runner/strategy-api.js';
import { SerialRuns } from './serial-runs.js';

/** What this reads of the tracker. */
export type FillReads = Pick<OrderTracker, 'position' | 'recentFills'>;

/** Fills read per pair and check: more between two checks than this are reported, not handed on. */
const MAX_PER_CHECK = 100;

/**
 * The runner's fills, read from the executor's tracker in Redis: the one place fills are derived,
 * so strategies see the fills PnL and the metrics count. A pair is checked when changed() says
 * the tracker wrote it (its pub/sub message), and every pair every `everyMs` as the fallback;
 * checks run one at a time. Fills recorded before start() are history, not news.
 */
export class TrackerFills implements FillSource {
  readonly #tracker: FillReads;
  readonly #pairs: readonly PairInfo[];
  readonly #clock: Clock;
  readonly #everyMs: number;
  readonly #log: Log;
  readonly #listeners = new Set<(fill: FillEvent) => void>();
  readonly #seen = new Map<string, number>();
  readonly #openingBase = new Map<string, Decimal>();
  readonly #stop = new AbortController();
  readonly #runs = new SerialRuns();
  #loop: Promise<void> | undefined;

  constructor(options: {
    tracker: FillReads;
    pairs: readonly PairInfo[];
    clock: Clock;
    everyMs: number;
    log: Log;
  }) {
    this.#tracker = options.tracker;
    this.#pairs = options.pairs;
    this.#clock = options.clock;
    this.#everyMs = options.everyMs;
    this.#log = options.log;
  }

  onFill(listener: (fill: FillEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async start(): Promise<void> {
    for (const p of this.#pairs) {
      // One key holds both, so the base held is the one after exactly the fills counted as seen.
      const position = await this.#tracker.position(p.id);
      this.#seen.set(p.id, position.fills);
      this.#openingBase.set(p.id, dec(position.base));
    }
    this.#loop = every(
      this.#clock,
      this.#everyMs,
      this.#stop.signal,
      () => this.check(),
      (err) => this.#log.warn({ err: errorMessage(err) }, 'reading fills from the tracker failed'),
    );
  }

  /** The pair's base position when start() read it: the fills after it are the ones handed on. */
  openingBase(pairId: string): Decimal {
    return this.#openingBase.get(pairId) ?? new Decimal(0);
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    await this.#runs.idle();
  }

  /**
   * The tracker wrote the pair (by id): its new fills are handed on after the checks already
   * queued; resolves once they are. A failure is logged; the next message or the fallback check
   * reads again.
   */
  changed(pairId: string): Promise<void> {
    const pair = this.#pairs.find((p) => p.id === pairId);
    // Before start() has counted what is history, there is nothing to hand on.
    if (pair === undefined || !this.#seen.has(pairId) || this.#stop.signal.aborted) {
      return Promise.resolve();
    }
    return this.#runs
      .run(pair.id, () => this.#checkPair(pair))
      .catch((err: unknown) =>
        this.#log.warn({ err: errorMessage(err) }, 'reading fills from the tracker failed'),
      );
  }

  /** Hands on the fills of every pair recorded since the last check, oldest first. */
  check(): Promise<void> {
    return this.#runs.run('*', async () => {
      // Every pair's count in one round trip of Redis; the new fills, if any, pair by pair.
      const counts = await Promise.all(
        this.#pairs.map(async (p) => ({ p, fills: (await this.#tracker.position(p.id)).fills })),
      );
      for (const { p, fills } of counts) await this.#handOn(p, fills);
    });
  }

  async #checkPair(p: PairInfo): Promise<void> {
    await this.#handOn(p, (await this.#tracker.position(p.id)).fills);
  }

  /**
   * The position's fill count (one small key) says first how many are new, and only those are
   * read and decoded: most checks find none, and reading and decoding the newest 100 fills of each
   * pair every second was a quarter of all the memory `makerd run` allocated (bench/soak.ts).
   */
  async #handOn(p: PairInfo, count: number): Promise<void> {
    const seen = this.#seen.get(p.id) ?? 0;
    const news = count - seen;
    if (news <= 0) return;
    let read = await this.#tracker.recentFills(p.id, Math.min(news, MAX_PER_CHECK));
    // Fills recorded between the two reads: the newest `news` are not all the unseen ones.
    if (read.total - seen > read.fills.length) {
      read = await this.#tracker.recentFills(p.id, MAX_PER_CHECK);
    }
    const { total, fills } = read;
    if (total <= seen) return;
    this.#seen.set(p.id, total);
    if (total - seen > MAX_PER_CHECK) {
      this.#log.warn({ pair: p.id, fills: total - seen }, 'more fills than one check hands on');
    }
    for (const f of fills.slice(0, total - seen).reverse()) {
      const event: FillEvent = {
        pair: f.pair,
        txid: f.txid,
        side: f.side,
        price: dec(f.price),
        volume: dec(f.volume),
        cost: dec(f.cost),
        fee: dec(f.fee),
        feeIn: f.feeIn,
        timeMs: f.atMs,
      };
      for (const listener of [...this.#listeners]) listener(event);
    }
  }
}
