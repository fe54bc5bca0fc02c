/**
 * What the simulator saw of a contender's orders (GET /_sim/orders?key=&closed=1): when each order
 * opened at the engine, by pair and userref. Gives tick-to-wire as far as the exchange and the
 * duplicates: on one pair a userref names one generation of one slot, so a second order for it is
 * a duplicate.
 */
import type { BenchSim } from './setup.js';

interface OrderRow {
  readonly pair: string;
  readonly userref: number;
  readonly opentm: number;
}

export interface ExchangeSide {
  /** Engine open time, wall-clock ms, of each first order by `placedKey`. */
  readonly openedAtMs: ReadonlyMap<string, number>;
  /** Orders beyond the first for one pair and userref. */
  readonly duplicates: number;
}

export async function readExchangeSide(sim: BenchSim, apiKey: string): Promise<ExchangeSide> {
  const res = await fetch(`${sim.url}/_sim/orders?key=${encodeURIComponent(apiKey)}&closed=1`);
  if (!res.ok) throw new Error(`/_sim/orders answered HTTP ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { open_orders: OrderRow[]; closed_orders: OrderRow[] };
  const openedAtMs = new Map<string, number>();
  let duplicates = 0;
  for (const o of [...body.open_orders, ...body.closed_orders]) {
    if (o.userref === 0) continue;
    const at = o.opentm * 1000;
    const key = placedKey(o.pair, o.userref);
    const seen = openedAtMs.get(key);
    if (seen !== undefined) duplicates++;
    if (seen === undefined || at < seen) openedAtMs.set(key, at);
  }
  return { openedAtMs, duplicates };
}

function placedKey(pair: string, userref: number): string {
  return `${pair}|${userref}`;
}

/** An order sent for `userref` on `pair` (its id), its tick-to-wire counted from `startAtMs`. */
export interface Placed {
  readonly pair: string;
  readonly userref: number;
  readonly startAtMs: number;
}

/** From each placement's start to its order opening at the engine, ms; unmatched ones skipped. */
export function toExchange(side: ExchangeSide, placed: readonly Placed[]): number[] {
  const out: number[] = [];
  for (const p of placed) {
    const at = side.openedAtMs.get(placedKey(p.pair, p.userref));
    if (at !== undefined) out.push(Math.max(0, at - p.startAtMs));
  }
  return out;
}
