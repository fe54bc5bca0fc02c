import type { Decimal, PublicTrade, QueuePosition } from '../../src/core/index.js';
import type { SimQueueView } from '../../test/market/queue-lab.js';

/** The estimate and the truth for one order at one Depth answer. */
interface Sample {
  readonly pair: string;
  readonly atMs: number;
  readonly price: Decimal;
  readonly side: 'buy' | 'sell';
  readonly estimate: number;
  readonly exact: number;
  readonly level: number;
}

/** Figures of one rule over a run. */
export interface Score {
  /** Order places compared (one per resting order of ours per Depth answer). */
  samples: number;
  /** Of which the estimate did not know the place yet (a level no answer had shown). */
  unknown: number;
  /** Sum of |estimate - exact| of the volume ahead, per pair (base units). */
  readonly absError: Map<string, number>;
  readonly perPair: Map<string, number>;
  /** Sums over samples whose level holds other volume: |error| / level and error / level. */
  absShare: number;
  signedShare: number;
  shared: number;
  /** Our orders' first fills, and how many of them the estimate had not seen coming. */
  fills: number;
  unseen: number;
  /** Sum over fills of what the estimate still had ahead at the fill, / level. */
  aheadAtFillShare: number;
}

export function newScore(): Score {
  return {
    samples: 0,
    unknown: 0,
    absError: new Map(),
    perPair: new Map(),
    absShare: 0,
    signedShare: 0,
    shared: 0,
    fills: 0,
    unseen: 0,
    aheadAtFillShare: 0,
  };
}

/**
 * Compares one estimator's places with the engine's queue at every Depth answer, and at each of
 * our first fills checks whether the place the estimate last gave was close enough to the front
 * for the trades that came next to reach us: what the estimate had ahead at the fill (the last
 * estimate less the volume traded at our price since, through it counting as all) should be 0.
 */
export class Scorer {
  readonly score = newScore();
  readonly #last = new Map<string, Sample>();

  /** At a Depth answer, after the estimator has taken it. */
  sample(
    view: SimQueueView,
    label: string,
    positions: readonly QueuePosition[],
    nowMs: number,
  ): void {
    const s = this.score;
    const resting = view.ourOrders();
    // An order that left without a fill will not be asked about.
    for (const [txid, last] of this.#last) {
      if (last.pair === label && !resting.some((o) => o.txid === txid)) this.#last.delete(txid);
    }
    for (const o of resting) {
      const truth = view.exact(o.txid);
      if (truth === undefined) continue;
      s.samples += 1;
      const est = positions.find((p) => p.txid === o.txid);
      if (est === undefined) {
        s.unknown += 1;
        continue;
      }
      const error = est.ahead.minus(truth.ahead).toNumber();
      s.absError.set(label, (s.absError.get(label) ?? 0) + Math.abs(error));
      s.perPair.set(label, (s.perPair.get(label) ?? 0) + 1);
      const level = truth.ahead.plus(truth.behind).toNumber();
      if (level > 0) {
        s.absShare += Math.abs(error) / level;
        s.signedShare += error / level;
        s.shared += 1;
      }
      this.#last.set(o.txid, {
        pair: label,
        atMs: nowMs,
        price: o.price,
        side: o.side,
        estimate: est.ahead.toNumber(),
        exact: truth.ahead.toNumber(),
        level,
      });
    }
  }

  /** Our order's first fill at `atMs`; `tape` holds the public trades up to then at least. */
  filled(txid: string, atMs: number, tape: readonly PublicTrade[]): void {
    const last = this.#last.get(txid);
    this.#last.delete(txid);
    if (last === undefined) return;
    const reach = reached(last, atMs, tape);
    const ahead = Math.max(0, last.estimate - reach);
    const s = this.score;
    s.fills += 1;
    if (ahead > 0) s.unseen += 1;
    if (last.level > 0) s.aheadAtFillShare += ahead / last.level;
  }
}

/** The volume that traded at the order's price after `last` up to `atMs`; Infinity through it. */
function reached(last: Sample, atMs: number, tape: readonly PublicTrade[]): number {
  const hit = last.side === 'buy' ? 'sell' : 'buy';
  let volume = 0;
  for (const t of tape) {
    if (t.timeMs <= last.atMs || t.timeMs > atMs || t.side !== hit) continue;
    if (t.price.eq(last.price)) volume += t.volume.toNumber();
    else if (last.side === 'buy' ? t.price.lt(last.price) : t.price.gt(last.price)) {
      return Infinity;
    }
  }
  return volume;
}
