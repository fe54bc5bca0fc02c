/**
 * Quote distance from target: every 250 ms, for each slot the strategy currently wants, the
 * distance in bps between the order the key has on the simulator in that slot and the wanted
 * price; a slot without an order counts MISSING_BPS. The key's open orders (pair, limit price,
 * userref) come from the simulator's admin API (GET /_sim/orders?key=), which costs the key no
 * REST budget, and are compared with what the strategy wants when the answer arrives. One sample
 * at a time: a tick that finds the previous sample still waiting for its answer is skipped, not
 * queued, and an answer that took longer than the sampling period is dropped (too stale to pair
 * with the wanted prices).
 */
import { decodeUserref, slotKey } from '../../src/core/index.js';
import type { WantedBook } from './chase-strategy.js';
import { INSTANCE, hrClock, type BenchSim } from './setup.js';

export const SAMPLE_EVERY_MS = 250;
export const MISSING_BPS = 100;

export interface DistanceFigures {
  /** Mean over samples × wanted slots, bps. */
  readonly meanBps: number;
  /** Mean over the slot samples that had an order, bps. */
  readonly meanPresentBps: number;
  /** Share of slot samples without an order. */
  readonly missingShare: number;
  readonly samples: number;
}

/** A row of GET /_sim/orders?key= (the fields used here). */
interface OpenOrderRow {
  readonly pair: string;
  readonly price: string | null;
  readonly userref: number;
}

/** The key's open orders, or undefined when the simulator does not know the key (yet). */
async function openOrders(
  sim: BenchSim,
  apiKey: string,
  signal: AbortSignal,
): Promise<readonly OpenOrderRow[] | undefined> {
  const res = await fetch(`${sim.url}/_sim/orders?key=${encodeURIComponent(apiKey)}`, { signal });
  if (res.status === 404) {
    await res.arrayBuffer();
    return undefined;
  }
  if (!res.ok) throw new Error(`/_sim/orders answered HTTP ${res.status}`);
  return ((await res.json()) as { open_orders: readonly OpenOrderRow[] }).open_orders;
}

export function sampleDistance(
  sim: BenchSim,
  apiKey: string,
  wanted: WantedBook,
): { stop: () => Promise<DistanceFigures> } {
  let sum = 0;
  let presentSum = 0;
  let slots = 0;
  let missing = 0;
  let samples = 0;
  const stopping = new AbortController();
  let inFlight: Promise<void> | undefined;

  const tally = (orders: readonly OpenOrderRow[]): void => {
    // pair id → slot key → limit prices of the key's orders in that slot.
    const live = new Map<string, Map<string, number[]>>();
    for (const o of orders) {
      const ref = decodeUserref(o.userref);
      if (ref?.instance !== INSTANCE || o.price === null) continue;
      const bySlot = live.get(o.pair) ?? new Map<string, number[]>();
      live.set(o.pair, bySlot);
      const key = slotKey(ref.slot);
      bySlot.set(key, [...(bySlot.get(key) ?? []), Number(o.price)]);
    }
    let any = false;
    for (const [pairId, want] of wanted) {
      for (const [slot, quote] of want.bySlot) {
        const target = quote.price.toNumber();
        const prices = live.get(pairId)?.get(slot);
        any = true;
        slots++;
        if (prices === undefined || prices.length === 0) {
          missing++;
          sum += MISSING_BPS;
          continue;
        }
        // Two orders in a slot (a replacement landed before its predecessor left): the nearer one.
        const bps = Math.min(...prices.map((p) => (Math.abs(p - target) / target) * 10_000));
        sum += bps;
        presentSum += bps;
      }
    }
    if (any) samples++;
  };

  const sample = async (): Promise<void> => {
    const askedAt = hrClock.now();
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(SAMPLE_EVERY_MS)]);
    let orders: readonly OpenOrderRow[] | undefined;
    try {
      orders = await openOrders(sim, apiKey, signal);
    } catch {
      return; // stopped, timed out or the simulator is gone: no sample
    }
    if (orders === undefined || stopping.signal.aborted) return;
    if (hrClock.now() - askedAt > SAMPLE_EVERY_MS) return;
    tally(orders);
  };

  const timer = setInterval(() => {
    if (inFlight !== undefined) return; // the previous sample is still out: skip this one
    inFlight = sample().finally(() => {
      inFlight = undefined;
    });
  }, SAMPLE_EVERY_MS);

  return {
    stop: async () => {
      clearInterval(timer);
      stopping.abort();
      await inFlight;
      const present = slots - missing;
      return {
        meanBps: slots === 0 ? Number.NaN : sum / slots,
        meanPresentBps: present === 0 ? Number.NaN : presentSum / present,
        missingShare: slots === 0 ? Number.NaN : missing / slots,
        samples,
      };
    },
  };
}
