/**
 * Quote distance from target: every 250 ms, for each slot the strategy currently wants, the
 * distance in bps between the order the key has on the simulator in that slot and the wanted
 * price; a slot without an order counts MISSING_BPS. Read in-process from the matching engine, so
 * sampling costs the key no REST budget.
 */
import { decodeUserref, slotKey } from '../../src/core/index.js';
import type { Simulator } from '../../src/sim/index.js';
import type { WantedBook } from './chase-strategy.js';
import { INSTANCE } from './setup.js';

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

export function sampleDistance(
  sim: Simulator,
  apiKey: string,
  wanted: WantedBook,
): { stop: () => DistanceFigures } {
  let sum = 0;
  let presentSum = 0;
  let slots = 0;
  let missing = 0;
  let samples = 0;
  const sample = (): void => {
    const account = sim.ctx.accounts.get(apiKey);
    if (account === undefined) return;
    let any = false;
    for (const [pairId, want] of wanted) {
      const pair = sim.ctx.markets.requirePair(pairId);
      const live = new Map<string, number[]>();
      for (const o of sim.ctx.engine.openOrders(account, pair)) {
        const ref = decodeUserref(o.spec.userref);
        if (ref?.instance !== INSTANCE || o.limitPrice === undefined) continue;
        const key = slotKey(ref.slot);
        live.set(key, [...(live.get(key) ?? []), o.limitPrice.toNumber()]);
      }
      for (const [slot, quote] of want.bySlot) {
        const target = quote.price.toNumber();
        const prices = live.get(slot);
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
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    stop: () => {
      clearInterval(timer);
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
