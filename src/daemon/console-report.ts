import type { Redis } from 'ioredis';
import type { ControlFlags } from '../bus/index.js';
import { dec, errorMessage, every, type Clock, type Log, type PairInfo } from '../core/index.js';
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
  /** When each enabled market-data source last answered (the console ages them at send time). */
  readonly sources: readonly { readonly source: string; readonly receivedAtMs: number }[];
  readonly point?: ChartPoint;
}

/** The Redis list of a pair's chart points for the last hour, oldest first. */
export function historyKey(prefix: string, altname: string): string {
  return `${prefix}:console:points:${altname}`;
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
 * resting orders as the tracker holds them (LivePnl hands them over each second), published once
 * a second; every HISTORY_EVERY_MS a chart point is appended to the pair's hour in Redis. Any
 * process's HTTP endpoint serves the console from there. Failures are logged, never thrown into
 * the trading path.
 */
export class ConsoleReporter {
  readonly #parts: ConsoleReporterParts;
  readonly #snapshots = new Map<string, MarketSnapshot>();
  readonly #orders = new Map<string, readonly TrackedOrder[]>();
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  #historyAtMs = -Infinity;

  constructor(parts: ConsoleReporterParts) {
    this.#parts = parts;
  }

  tick(report: TickReport): void {
    this.#snapshots.set(report.pair, report.snapshot);
  }

  orders(pair: PairInfo, live: readonly TrackedOrder[]): void {
    this.#orders.set(pair.id, live);
  }

  start(): void {
    this.#loop = every(
      this.#parts.clock,
      1_000,
      this.#stop.signal,
      () => this.publish(),
      (err) => this.#parts.log.warn({ err: errorMessage(err) }, 'console report failed'),
    );
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  async publish(): Promise<void> {
    const { flags, redis, prefix, clock, reportTtlMs } = this.#parts;
    const now = clock.now();
    const pairs: Record<string, RunnerPairReport> = {};
    for (const pair of this.#parts.pairs) {
      const snap = this.#snapshots.get(pair.id);
      if (snap !== undefined)
        pairs[pair.altname] = pairReport(snap, this.#orders.get(pair.id) ?? []);
    }
    const report: RunnerConsoleReport = { atMs: now, pairs };
    await flags.report(CONSOLE_REPORT, report, reportTtlMs);
    if (now - this.#historyAtMs < HISTORY_EVERY_MS) return;
    this.#historyAtMs = now;
    const batch = redis.pipeline();
    for (const [altname, p] of Object.entries(pairs)) {
      if (p.point === undefined) continue;
      const key = historyKey(prefix, altname);
      batch.rpush(key, JSON.stringify(p.point)).ltrim(key, -HISTORY_POINTS, -1);
    }
    await batch.exec();
  }
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
    .map(([source, s]) => ({ source, receivedAtMs: s.receivedAtMs as number }));
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
