import { cancelAllPenalty } from '../../exchange/limits/index.js';
import type { Engine, SimOrder } from '../engine/types.js';
import type { Account } from './accounts.js';
import type { SimLimits } from './limits.js';
import { iso } from './status.js';

export interface DeadmanFiring {
  readonly key: string;
  readonly atMs: number;
  readonly cancelled: number;
}

/**
 * CancelAllOrdersAfter per key, as the spec's state table: disabled → armed on a timeout > 0,
 * pushed back by each refresh, disabled by 0; on expiry every order of the key is cancelled with
 * the per-pair cancellation penalties, and the timer stays disabled.
 */
export class DeadmanTimers {
  readonly #triggers = new Map<string, number>();
  readonly #engine: Engine;
  readonly #limits: SimLimits;
  readonly #accountOf: (key: string) => Account | undefined;
  readonly firings: DeadmanFiring[] = [];

  constructor(engine: Engine, limits: SimLimits, accountOf: (key: string) => Account | undefined) {
    this.#engine = engine;
    this.#limits = limits;
    this.#accountOf = accountOf;
  }

  arm(
    account: Account,
    timeoutSec: number,
    nowMs: number,
  ): { currentTime: string; triggerTime: string } {
    if (timeoutSec === 0) {
      this.#triggers.delete(account.key);
      return { currentTime: iso(nowMs), triggerTime: '0' };
    }
    const at = nowMs + timeoutSec * 1000;
    this.#triggers.set(account.key, at);
    return { currentTime: iso(nowMs), triggerTime: iso(at) };
  }

  /** Trigger time (ms) of an armed key, for /_sim/state. */
  triggerAt(key: string): number | undefined {
    return this.#triggers.get(key);
  }

  tick(nowMs: number): void {
    for (const [key, at] of this.#triggers) {
      if (at <= nowMs) this.fire(key, nowMs);
    }
  }

  /**
   * The engine came back from downtime: the spec says orders of keys whose timer is still armed
   * are all cancelled.
   */
  fireAllArmed(nowMs: number): void {
    for (const key of [...this.#triggers.keys()]) this.fire(key, nowMs);
  }

  fire(key: string, nowMs: number): void {
    this.#triggers.delete(key);
    const account = this.#accountOf(key);
    if (account === undefined) return;
    const cancelled = this.#engine.cancelAll(account, 'Dead man switch');
    chargeCancelAll(this.#limits, account, cancelled, nowMs);
    this.firings.push({ key, atMs: nowMs, cancelled: cancelled.length });
  }
}

/** CancelAll and a firing dead man add each cancelled order's age penalty to its pair. */
export function chargeCancelAll(
  limits: SimLimits,
  account: Account,
  cancelled: readonly SimOrder[],
  nowMs: number,
): void {
  const agesByPair = new Map<string, { pair: SimOrder['pair']; ages: number[] }>();
  for (const o of cancelled) {
    const entry = agesByPair.get(o.pair.id) ?? { pair: o.pair, ages: [] };
    entry.ages.push(nowMs - o.opentmMs);
    agesByPair.set(o.pair.id, entry);
  }
  for (const { pair, ages } of agesByPair.values()) {
    limits.addPenalty(account, pair, cancelAllPenalty(ages), nowMs);
  }
}
