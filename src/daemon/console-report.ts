import type { Redis } from 'ioredis';
import type { ControlFlags } from '../bus/index.js';
import {
  PacedLoop,
  dec,
  errorMessage,
  type Clock,
  type Log,
  type PairInfo,
} from '../core/index.js';
import type { MarketSnapshot, PriceLevel, QueuePosition } from '../core/market.js';
import { isOurResting, type TrackedOrder } from '../orders/index.js';
import type { TickReport } from '../runner/runner.js';
import type { ChartPoint, ConsoleOrder } from '../console/state.js';

/** Name of the runner's console report among the roles' status reports (status:console). */
export const CONSOLE_REPORT = 'console';
/** One chart point per this long goes into the hour's history... */
export const HISTORY_EVERY_MS = 5_000;
/** ...which keeps this many (an hour). */
export const HISTORY_POINTS = 720;

/** What the runner leaves in Redis each second for any process's console to read. */
export interface RunnerConsoleReport {
  readonly atMs: number;
  /** Per pair altname. */
  readonly pairs: Readonly<Record<string, RunnerPairReport>>;
}

export interface RunnerPairReport {
  readonly mode: string;
  readonly modeReason?: string;
  readonly bid?: string;
  readonly ask?: string;
  readonly mid?: string;
  readonly orders: readonly ConsoleOrder[];
  /**
   * When each enabled market-data source last answered (the console ages them at send time), and
   * the age past which it is stale.
   */
  readonly sources: readonly {
    readonly source: string;
    readonly receivedAtMs: number;
    readonly staleAfterMs?: number;
  }[];
  readonly point?: ChartPoint;
}

/** The report is published this often... */
const REPORT_EVERY_MS = 1_000;
/**
 * ...and, when orders were taken off (a halt, a pull, fills), this long after the last one at the
 * soonest, rather than at the next second: the page must not list cancelled orders a second after
 * the exchange confirmed the cancel. A halt's cancels of every pair are one report, not one each.
 */
const DROPPED_SOONEST_MS = 200;

/** The Redis list of a pair's chart points for the last hour, oldest first. */
export function historyKey(prefix: string, altname: string): string {
  return `${prefix}:console:points:${altname}`;
}

/**
 * Pub/sub channel told when a report lists other orders or modes than the one before: every
 * process's console reads the state on it instead of at its next second.
 */
export function consoleChangesChannel(prefix: string): string {
  return `${prefix}:console:changes`;
}

export interface ConsoleReporterParts {
  readonly pairs: readonly PairInfo[];
  readonly flags: Pick<ControlFlags, 'report'>;
  readonly redis: Redis;
  readonly prefix: string;
  readonly clock: Clock;
  readonly reportTtlMs: number;
  readonly log: Log;
}

/**
 * The runner's side of the operator console: the book and mode of each pair's last tick, our
 * resting orders as the tracker holds them (LivePnl hands them over after each tracker write and
 * each second), looked at once a second and soon after orders are taken off, and written when it
 * changed (or a third of its ttl has gone); a report whose orders or modes differ from the last
 * one's is announced on consoleChangesChannel. Every HISTORY_EVERY_MS a new chart point is
 * appended to the pair's hour in Redis. Any process's HTTP endpoint serves the console from
 * there. Failures are logged, never thrown into the trading path.
 */
export class ConsoleReporter {
  readonly #parts: ConsoleReporterParts;
  readonly #snapshots = new Map<string, MarketSnapshot>();
  readonly #orders = new Map<string, readonly TrackedOrder[]>();
  readonly #loop: PacedLoop;
  #historyAtMs = -Infinity;
  /** What the last report listed of orders and modes (what it is announced on). */
  #listed = '';
  /** The pairs' report as last built from the ticks and orders, and its JSON. */
  #built: { readonly pairs: Record<string, RunnerPairReport>; readonly json: string } | undefined;
  /** A tick or the orders came since the report was last built. */
  #changed = true;
  /** The pairs' report as last written (JSON) and when. */
  #written: { readonly json: string; readonly atMs: number } | undefined;
  /** Per pair altname, the time of the chart point last appended. */
  readonly #pointsAppended = new Map<string, number>();

  constructor(parts: ConsoleReporterParts) {
    this.#parts = parts;
    this.#loop = new PacedLoop({
      clock: parts.clock,
      everyMs: REPORT_EVERY_MS,
      soonestMs: DROPPED_SOONEST_MS,
      step: () => this.publish(),
      onError: (err) => parts.log.warn({ err: errorMessage(err) }, 'console report failed'),
    });
  }

  tick(report: TickReport): void {
    this.#snapshots.set(report.pair, report.snapshot);
    this.#changed = true;
  }

  orders(pair: PairInfo, live: readonly TrackedOrder[]): void {
    const before = (this.#orders.get(pair.id) ?? []).filter(isOurResting).length;
    this.#orders.set(pair.id, live);
    this.#changed = true;
    if (live.filter(isOurResting).length < before) this.#loop.changed();
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  async publish(): Promise<void> {
    const { flags, redis, prefix, clock, reportTtlMs } = this.#parts;
    const now = clock.now();
    const { pairs, json } = this.#build();
    // Between polls the report says the same each second: it is written again only when it
    // changed, or before a third of its ttl has gone.
    const written = this.#written;
    if (written?.json !== json || now - written.atMs >= reportTtlMs / 3) {
      const report: RunnerConsoleReport = { atMs: now, pairs };
      await flags.report(CONSOLE_REPORT, report, reportTtlMs);
      this.#written = { json, atMs: now };
    }
    const listed = JSON.stringify(
      Object.entries(pairs).map(([altname, p]) => listedOf(altname, p)),
    );
    if (listed !== this.#listed) {
      this.#listed = listed;
      // Best effort: a console that misses it reads the report at its next second.
      await redis.publish(consoleChangesChannel(prefix), 'report').catch(() => undefined);
    }
    if (now - this.#historyAtMs < HISTORY_EVERY_MS) return;
    this.#historyAtMs = now;
    // A point no newer than the pair's last (no snapshot since) would be dropped by the page.
    const points = Object.entries(pairs).flatMap(([altname, { point }]) =>
      point === undefined || point.tMs <= (this.#pointsAppended.get(altname) ?? -Infinity)
        ? []
        : [{ altname, point }],
    );
    if (points.length === 0) return;
    const batch = redis.pipeline();
    for (const { altname, point } of points) {
      const key = historyKey(prefix, altname);
      batch.rpush(key, JSON.stringify(point)).ltrim(key, -HISTORY_POINTS, -1);
    }
    await batch.exec();
    for (const { altname, point } of points) this.#pointsAppended.set(altname, point.tMs);
  }

  /** The pairs' report, built again only after a tick or new orders. */
  #build(): { readonly pairs: Record<string, RunnerPairReport>; readonly json: string } {
    if (!this.#changed && this.#built !== undefined) return this.#built;
    this.#changed = false;
    const pairs: Record<string, RunnerPairReport> = {};
    for (const pair of this.#parts.pairs) {
      const snap = this.#snapshots.get(pair.id);
      if (snap !== undefined)
        pairs[pair.altname] = pairReport(snap, this.#orders.get(pair.id) ?? []);
    }
    this.#built = { pairs, json: JSON.stringify(pairs) };
    return this.#built;
  }
}

/**
 * What a change of is worth telling the consoles at once: the pair's mode and which orders it
 * holds. Not the book, the queue places or the data ages, which move each tick and which the
 * consoles' second shows.
 */
function listedOf(altname: string, p: RunnerPairReport): unknown[] {
  return [altname, p.mode, p.modeReason, p.orders.map((o) => [o.side, o.price, o.volume])];
}

/** Our resting orders as the console lists them: bids best first, then asks best first. */
export function consoleOrders(snap: MarketSnapshot, live: readonly TrackedOrder[]): ConsoleOrder[] {
  return live
    .filter(isOurResting)
    .map((o) => consoleOrder(o, o.side === 'buy' ? snap.book.bids : snap.book.asks, snap.queue))
    .sort((a, b) =>
      a.side !== b.side
        ? a.side === 'buy'
          ? -1
          : 1
        : (a.side === 'buy' ? -1 : 1) * dec(a.price).comparedTo(dec(b.price)),
    );
}

function pairReport(snap: MarketSnapshot, live: readonly TrackedOrder[]): RunnerPairReport {
  const orders = consoleOrders(snap, live);
  const bids = orders.filter((o) => o.side === 'buy').map((o) => Number(o.price));
  const asks = orders.filter((o) => o.side === 'sell').map((o) => Number(o.price));
  const sources = Object.entries(snap.sources)
    .filter(([, s]) => s.receivedAtMs !== undefined)
    .map(([source, s]) => ({
      source,
      receivedAtMs: s.receivedAtMs as number,
      ...(Number.isFinite(s.staleAfterMs) ? { staleAfterMs: s.staleAfterMs } : {}),
    }));
  return {
    mode: snap.mode,
    ...(snap.modeReason === undefined ? {} : { modeReason: snap.modeReason }),
    ...(snap.bestBid === undefined ? {} : { bid: snap.bestBid.toFixed() }),
    ...(snap.bestAsk === undefined ? {} : { ask: snap.bestAsk.toFixed() }),
    ...(snap.mid === undefined ? {} : { mid: snap.mid.toFixed() }),
    orders,
    sources,
    ...(snap.mid === undefined
      ? {}
      : {
          point: {
            tMs: snap.takenAtMs,
            mid: snap.mid.toNumber(),
            ...(bids.length === 0 ? {} : { bid: Math.max(...bids) }),
            ...(asks.length === 0 ? {} : { ask: Math.min(...asks) }),
          },
        }),
  };
}

/**
 * One order as the console lists it, with its level (price levels better than it on its side)
 * and its place in its price's queue from the snapshot's queue estimator (exact when Level3 is
 * polled), once known.
 */
function consoleOrder(
  o: TrackedOrder,
  side: readonly PriceLevel[],
  places: readonly QueuePosition[],
): ConsoleOrder {
  const price = dec(o.price);
  const better = side.filter((l) =>
    o.side === 'buy' ? l.price.greaterThan(price) : l.price.lessThan(price),
  ).length;
  const place = o.txid === null ? undefined : places.find((q) => q.txid === o.txid);
  return {
    side: o.side,
    price: o.price,
    volume: dec(o.volume).minus(o.volumeExecuted).toFixed(),
    level: better,
    ...(place === undefined
      ? {}
      : {
          queueAhead: place.ahead.toFixed(),
          queueSource: place.source,
          ...(place.source === 'depth' ? { queueRule: place.rule } : {}),
        }),
  };
}
