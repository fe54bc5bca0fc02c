import {
  decayedLevel,
  FIT_EPSILON,
  MATCHING_ENGINE,
  RatecountMeter,
  REST_COUNTER,
  type RatecountState,
} from '../../exchange/limits/index.js';
import type { DecayConfig } from '../config.js';
import { SimError } from '../errors.js';
import type { SimPair } from '../markets.js';
import type { Account } from './accounts.js';

interface RestState {
  level: number;
  atMs: number;
  /** While now < this, every call is refused (the spec: "restricted for a few seconds"). */
  restrictedUntilMs: number;
}

interface PublicState {
  level: number;
  atMs: number;
}

/**
 * The exchange's limits, enforced with the same tables and arithmetic the client models them with
 * (src/exchange/limits), so "the bot never earns a rejection" is a claim both sides can check.
 */
export class SimLimits {
  readonly #rest = new Map<string, RestState>();
  readonly #ratecounts = new Map<string, RatecountMeter>();
  /** Points charged per key and pair since start, for benchmarks' budget utilization. */
  readonly #charged = new Map<string, number>();
  readonly #public = new Map<string, PublicState>();
  readonly #restrictionMs: number;
  readonly #publicLimit: DecayConfig;
  readonly #enforce: boolean;

  constructor(options: { restrictionMs: number; publicLimit: DecayConfig; enforce?: boolean }) {
    this.#restrictionMs = options.restrictionMs;
    this.#publicLimit = options.publicLimit;
    this.#enforce = options.enforce ?? true;
  }

  /**
   * REST call counter. A call that would take the counter over the tier max is refused and
   * restricts the key; calls during the restriction are refused and extend it.
   */
  chargeRest(account: Account, cost: number, nowMs: number): void {
    if (cost === 0 || !this.#enforce) return;
    const limits = REST_COUNTER[account.tier];
    const state = this.#restState(account.key);
    if (nowMs < state.restrictedUntilMs) {
      state.restrictedUntilMs = nowMs + this.#restrictionMs;
      throw new SimError('EAPI:Rate limit exceeded');
    }
    const level = decayedLevel(state.level, state.atMs, limits.decayPerSec, nowMs);
    if (level + cost > limits.max + FIT_EPSILON) {
      state.level = level;
      state.atMs = Math.max(state.atMs, nowMs);
      state.restrictedUntilMs = nowMs + this.#restrictionMs;
      throw new SimError('EAPI:Rate limit exceeded');
    }
    state.level = level + cost;
    state.atMs = Math.max(state.atMs, nowMs);
  }

  restLevel(account: Account, nowMs: number): number {
    const state = this.#rest.get(account.key);
    if (state === undefined) return 0;
    return decayedLevel(state.level, state.atMs, REST_COUNTER[account.tier].decayPerSec, nowMs);
  }

  ratecount(account: Account, pair: SimPair): RatecountMeter {
    const id = `${account.key}\u0000${pair.id}`;
    let meter = this.#ratecounts.get(id);
    const limits = MATCHING_ENGINE[account.tier];
    if (meter === undefined || meter.limits !== limits) {
      // A tier change through the admin API keeps the count and takes the new max and decay.
      meter = new RatecountMeter(limits, meter?.state);
      this.#ratecounts.set(id, meter);
    }
    return meter;
  }

  /** Whether `points` fit now (always, with limits off): for actions that charge several pairs. */
  fits(account: Account, pair: SimPair, points: number, nowMs: number): boolean {
    return !this.#enforce || !this.ratecount(account, pair).wouldExceed(points, nowMs);
  }

  /** Order entry that must fit: refused with the spec's string when it would pass the max. */
  chargeOrderEntry(account: Account, pair: SimPair, points: number, nowMs: number): void {
    const meter = this.ratecount(account, pair);
    if (this.#enforce && meter.wouldExceed(points, nowMs))
      throw new SimError('EOrder:Rate limit exceeded');
    meter.add(points, nowMs);
    this.#charge(account, pair, points);
  }

  /** Penalties the exchange adds even past the max: batch cancels, CancelAll, the dead man. */
  addPenalty(account: Account, pair: SimPair, points: number, nowMs: number): void {
    if (points > 0) this.ratecount(account, pair).add(points, nowMs);
    this.#charge(account, pair, points);
  }

  #charge(account: Account, pair: SimPair, points: number): void {
    const id = `${account.key}\u0000${pair.id}`;
    this.#charged.set(id, (this.#charged.get(id) ?? 0) + Math.max(0, points));
  }

  /**
   * Public requests per client address. The spec names no limit string for public calls; the
   * refusal is `EService:Throttled: <unix seconds>` with the time the next call fits, which
   * clients already know how to wait for.
   */
  chargePublic(clientId: string, nowMs: number): void {
    if (!this.#enforce) return;
    const { max, decay_per_sec: decay } = this.#publicLimit;
    let state = this.#public.get(clientId);
    if (state === undefined) {
      state = { level: 0, atMs: nowMs };
      this.#public.set(clientId, state);
    }
    const level = decayedLevel(state.level, state.atMs, decay, nowMs);
    if (level + 1 > max + FIT_EPSILON) {
      const retryAtSec = Math.ceil((nowMs + ((level + 1 - max) / decay) * 1000) / 1000);
      throw new SimError(`EService:Throttled: ${retryAtSec}`);
    }
    state.level = level + 1;
    state.atMs = Math.max(state.atMs, nowMs);
  }

  /** For /_sim/state: REST counter per key and ratecount per key and pair, decayed to now. */
  snapshot(
    accounts: readonly Account[],
    nowMs: number,
  ): {
    rest: Record<string, { level: number; max: number; restricted: boolean }>;
    ratecount: Record<string, Record<string, { level: number; max: number; charged: number }>>;
  } {
    const rest: Record<string, { level: number; max: number; restricted: boolean }> = {};
    const ratecount: Record<
      string,
      Record<string, { level: number; max: number; charged: number }>
    > = {};
    for (const account of accounts) {
      if (account.kind === 'background') continue;
      rest[account.key] = {
        level: round(this.restLevel(account, nowMs)),
        max: REST_COUNTER[account.tier].max,
        restricted: nowMs < (this.#rest.get(account.key)?.restrictedUntilMs ?? 0),
      };
    }
    for (const [id, meter] of this.#ratecounts) {
      const [key = '', pair = ''] = id.split('\u0000');
      (ratecount[key] ??= {})[pair] = {
        level: round(meter.level(nowMs)),
        max: meter.max,
        charged: round(this.#charged.get(id) ?? 0),
      };
    }
    return { rest, ratecount };
  }

  /** Raw ratecount state, for tests that compare the simulator with the client's model. */
  ratecountState(account: Account, pair: SimPair): RatecountState {
    return this.ratecount(account, pair).state;
  }

  #restState(key: string): RestState {
    let state = this.#rest.get(key);
    if (state === undefined) {
      state = { level: 0, atMs: 0, restrictedUntilMs: 0 };
      this.#rest.set(key, state);
    }
    return state;
  }
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
