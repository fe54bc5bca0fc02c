import { Decimal } from '../../core/index.js';
import { InvalidInputError } from '../../core/index.js';
import type { RecordedRow } from '../../recording/format.js';

/** What a first pass over a recording learns: the pairs, the span, the pair rules. */
export interface RecordingScan {
  readonly rows: number;
  readonly firstMs: number;
  readonly lastMs: number;
  /** Pair altnames with rows (key-wide rows excluded). */
  readonly pairs: readonly string[];
  /** Each pair's last row (receive time): a pair whose data ends early replays a frozen book. */
  readonly pairLastMs: ReadonlyMap<string, number>;
  /**
   * The pair rules in force at the start, by pair id: the last AssetPairs answer before it among
   * the rows given (a recording asks again each hour), else the first within the span.
   */
  readonly assetPairs: Readonly<Record<string, Record<string, unknown>>> | undefined;
  /** The first Depth answer's (or imported book's) mid per pair, as a starting price. */
  readonly firstMid: ReadonlyMap<string, string>;
  /**
   * The median round trip of the calls recorded (asked to answered, whole ms; the bot's own
   * OwnOrders rows are no call), undefined when none was timed: the live link's latency.
   */
  readonly roundTripMs: number | undefined;
}

/**
 * Reads the rows once (streamed) within [fromMs, toMs]; an empty recording is refused. Rows before
 * fromMs count only for their pair rules.
 */
export async function scanRecording(
  rows: AsyncIterable<RecordedRow>,
  fromMs = -Infinity,
  toMs = Infinity,
): Promise<RecordingScan> {
  let count = 0;
  let firstMs = Infinity;
  let lastMs = -Infinity;
  const pairs = new Set<string>();
  const pairLastMs = new Map<string, number>();
  const firstMid = new Map<string, string>();
  let assetPairs: Record<string, Record<string, unknown>> | undefined;
  let rulesBefore: Record<string, Record<string, unknown>> | undefined;
  // Round trips by whole ms: the median of a day of rows in a few hundred entries.
  const roundTrips = new Map<number, number>();
  for await (const row of rows) {
    if (row.receivedMs < fromMs && row.endpoint === 'AssetPairs' && row.body !== undefined) {
      rulesBefore = (resultOf(row.body) as typeof rulesBefore) ?? rulesBefore;
    }
    if (row.receivedMs < fromMs || row.receivedMs > toMs) continue;
    count += 1;
    if (row.endpoint !== 'OwnOrders' && row.error === undefined && row.receivedMs > row.askedMs) {
      const ms = Math.round(row.receivedMs - row.askedMs);
      roundTrips.set(ms, (roundTrips.get(ms) ?? 0) + 1);
    }
    firstMs = Math.min(firstMs, row.receivedMs);
    lastMs = Math.max(lastMs, row.receivedMs);
    if (row.pair !== undefined) {
      pairs.add(row.pair);
      pairLastMs.set(row.pair, Math.max(pairLastMs.get(row.pair) ?? -Infinity, row.receivedMs));
    }
    if (row.body === undefined) continue;
    if (row.endpoint === 'AssetPairs' && assetPairs === undefined) {
      assetPairs = resultOf(row.body) as Record<string, Record<string, unknown>> | undefined;
    } else if (row.endpoint === 'Depth' && row.pair !== undefined && !firstMid.has(row.pair)) {
      const mid = midOf(row.body);
      if (mid !== undefined) firstMid.set(row.pair, mid);
    } else if (row.endpoint === 'BookUpdate' && row.pair !== undefined && !firstMid.has(row.pair)) {
      const mid = bookUpdateMid(row.body);
      if (mid !== undefined) firstMid.set(row.pair, mid);
    }
  }
  if (count === 0) {
    throw new InvalidInputError(
      '--data',
      Number.isFinite(fromMs) || Number.isFinite(toMs)
        ? 'the recording has no rows between --from and --to'
        : 'the recording is empty (no rows)',
    );
  }
  return {
    rows: count,
    firstMs,
    lastMs,
    pairs: [...pairs].sort(),
    pairLastMs,
    assetPairs: rulesBefore ?? assetPairs,
    firstMid,
    roundTripMs: median(roundTrips),
  };
}

/** The median of a histogram (value -> count); undefined when empty. */
function median(histogram: ReadonlyMap<number, number>): number | undefined {
  const total = [...histogram.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  let seen = 0;
  for (const [value, n] of [...histogram].sort((a, b) => a[0] - b[0])) {
    seen += n;
    if (seen * 2 >= total) return value;
  }
  return undefined;
}

function resultOf(body: string): unknown {
  try {
    const parsed = JSON.parse(body) as { error?: unknown[]; result?: unknown };
    return (parsed.error?.length ?? 0) > 0 ? undefined : parsed.result;
  } catch {
    return undefined;
  }
}

function midOf(body: string): string | undefined {
  const result = resultOf(body) as Record<string, { bids?: string[][]; asks?: string[][] }>;
  const book = result === undefined ? undefined : Object.values(result)[0];
  const bid = book?.bids?.[0]?.[0];
  const ask = book?.asks?.[0]?.[0];
  if (bid === undefined || ask === undefined) return undefined;
  return new Decimal(bid).plus(ask).div(2).toFixed();
}

/** The mid of an imported book change that holds both sides (a snapshot does). */
function bookUpdateMid(body: string): string | undefined {
  try {
    const { bids, asks } = JSON.parse(body) as { bids?: string[][]; asks?: string[][] };
    const prices = (levels: string[][] | undefined) =>
      (levels ?? []).filter((l) => new Decimal(l[1] ?? 0).gt(0)).map((l) => new Decimal(l[0] ?? 0));
    const bid = prices(bids).reduce<Decimal | undefined>((a, p) => (a?.gt(p) ? a : p), undefined);
    const ask = prices(asks).reduce<Decimal | undefined>((a, p) => (a?.lt(p) ? a : p), undefined);
    if (bid === undefined || ask === undefined) return undefined;
    return bid.plus(ask).div(2).toFixed();
  } catch {
    return undefined;
  }
}
