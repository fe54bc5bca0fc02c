import { randomBytes } from 'node:crypto';
import { Decimal, dec } from '../../core/index.js';
import type { BackgroundConfig } from '../config.js';
import type { BackgroundControl, SimContext } from '../context.js';
import type { Side } from '../engine/types.js';
import { limitSpec } from '../engine/limit-spec.js';
import { SimError, invalidArguments } from '../errors.js';
import type { SimPair } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { FairValuePath } from './fair-value-path.js';
import { sizeFactor } from './order-sizes.js';
import { ladder, onTick, stepTicks, volumeFor } from './quote-ladder.js';
import { RandomSource } from './random-source.js';
import { spreadFactor, type Regime } from './regimes.js';

/**
 * What the background market uses of the simulator. The rest of a SimContext may be passed along
 * (the composition root hands over its context before the background exists in it).
 */
export type BackgroundDeps = Partial<SimContext> &
  Pick<SimContext, 'clock' | 'markets' | 'engine' | 'accounts' | 'status'>;

/**
 * Makers and takers are separate keys: self-trade prevention would stop one key trading with
 * itself.
 */
export const BACKGROUND_MAKER_KEY = '__background__';
export const BACKGROUND_TAKER_KEY = '__background_taker__';

const USD = 'ZUSD';
/** Balances far beyond any order the background places; topped up when half is used. */
const HUGE = new Decimal('1000000000000');
const TOP_UP_EVERY_STEPS = 200;
const LEDGER_KEPT = 1_000;
/** Catch-up after a long clock jump is capped so one tick cannot stall the server. */
const MAX_CATCH_UP_STEPS = 20_000;
/** The level grid is resized when fair value has moved this far from where it was sized. */
const REGRID_DRIFT = 0.25;
/** Takers reach this many level steps past the touch, so a sweep never runs away. */
const TAKER_REACH_LEVELS = 3;

interface Quote {
  readonly side: Side;
  readonly price: Decimal;
  readonly txid: string;
}

interface PairState {
  readonly pair: SimPair;
  readonly path: FairValuePath;
  /** Fair value when the grid was last sized. */
  gridAnchor: Decimal;
  stepTicks: number;
  /** Background maker orders believed open, keyed `side:price`, front of the queue first. */
  readonly quotes: Map<string, Quote[]>;
}

export interface BackgroundStats {
  readonly steps: number;
  readonly placed: number;
  /** Placements the engine refused (funds, minimums...): counted, never fatal. */
  readonly rejected: number;
  /** Orders of informed takers (a subset of `placed`). */
  readonly informed: number;
  /** Background orders cancelled at random and replaced at the back of their level. */
  readonly requoted: number;
}

/**
 * Synthetic participants that make the simulated market move: per pair a fair value on a
 * geometric random walk with calm and volatile regimes, a ladder of resting orders around it
 * (several per level, refreshed as it moves and as levels fill, some cancelled and replaced at
 * random) and takers arriving as a Poisson process that trade against whatever is best, user
 * orders included. Some takers are informed: they know fair value a few seconds ahead and trade
 * only toward it, which is what makes resting quotes lose to the flow that fills them. Sizes are
 * heavy-tailed. Seeded, and driven only by `step(nowMs)` from the simulator's tick, so the same
 * seed and the same clock give the same prints (docs/simulator.md, "Background flow").
 *
 * It calls the engine directly: no REST counter, no ratecount. It leaves the book alone unless
 * the status is `online` (the spec: no trades otherwise); fair value keeps walking meanwhile.
 */
export class BackgroundMarket implements BackgroundControl {
  readonly #deps: BackgroundDeps;
  readonly #config: BackgroundConfig;
  readonly #rng: RandomSource;
  readonly #pairs = new Map<string, PairState>();
  #paused: boolean;
  #lastStepMs: number | undefined;
  #maker: Account | undefined;
  #taker: Account | undefined;
  /** Index price is the fair value only once it means something (ran, or set by the admin). */
  #live = false;
  #steps = 0;
  #placed = 0;
  #rejected = 0;
  #informed = 0;
  #requoted = 0;

  constructor(deps: BackgroundDeps, config: BackgroundConfig) {
    this.#deps = deps;
    this.#config = config;
    this.#rng = new RandomSource(config.seed);
    this.#paused = !config.enabled;
    const dtSec = config.step_ms / 1000;
    // Only informed takers look ahead: without them nothing is drawn in advance.
    const aheadSteps =
      config.informed.share > 0
        ? Math.max(1, Math.round((config.informed.horizon_s * 1000) / config.step_ms))
        : 0;
    for (const pair of deps.markets.pairs) {
      const path = new FairValuePath(pair.initialPrice, this.#rng, {
        volatilityPerSec: config.volatility_per_sec,
        dtSec,
        aheadSteps,
        regimes: config.regimes,
      });
      this.#pairs.set(pair.id, {
        pair,
        path,
        gridAnchor: pair.initialPrice,
        stepTicks: stepTicks(pair, pair.initialPrice, config.level_step),
        quotes: new Map(),
      });
    }
  }

  get running(): boolean {
    return !this.#paused;
  }

  get stats(): BackgroundStats {
    return {
      steps: this.#steps,
      placed: this.#placed,
      rejected: this.#rejected,
      informed: this.#informed,
      requoted: this.#requoted,
    };
  }

  pause(): void {
    this.#paused = true;
  }

  /** Resumes from the current time: paused time is not replayed. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#lastStepMs = undefined;
  }

  fairValue(pairId: string): string | undefined {
    const state = this.#state(pairId);
    return state === undefined ? undefined : onTick(state.pair, state.path.fair, false).toFixed();
  }

  /** The pair's volatility regime now. */
  regime(pairId: string): Regime | undefined {
    return this.#state(pairId)?.path.regime;
  }

  /** Moves fair value outright (admin API); the ladder follows at the next step. */
  setFairValue(pairId: string, price: string): void {
    const state = this.#state(pairId);
    if (state === undefined) throw new SimError('EQuery:Unknown asset pair');
    let value: Decimal;
    try {
      value = dec(price);
    } catch {
      throw invalidArguments('price');
    }
    if (!value.gt(0)) throw invalidArguments('price');
    state.path.set(value);
    this.#regrid(state);
    this.#live = true;
  }

  /** Fair value as the engine's index price (`trigger=index`); undefined while it means nothing. */
  indexPrice(pairId: string): Decimal | undefined {
    const state = this.#state(pairId);
    if (state === undefined || !this.#live) return undefined;
    return onTick(state.pair, state.path.fair, false);
  }

  /** Runs every step due by `nowMs` (one every `step_ms`); the first call acts at once. */
  step(nowMs: number): void {
    if (this.#paused) return;
    const every = this.#config.step_ms;
    if (this.#lastStepMs === undefined) {
      // Steps sit on multiples of step_ms, so how the clock is chopped into ticks changes nothing.
      this.#lastStepMs = nowMs - (nowMs % every);
      this.#act();
      return;
    }
    let due = Math.floor((nowMs - this.#lastStepMs) / every);
    if (due <= 0) return;
    if (due > MAX_CATCH_UP_STEPS) {
      this.#lastStepMs += (due - MAX_CATCH_UP_STEPS) * every;
      due = MAX_CATCH_UP_STEPS;
    }
    for (let i = 0; i < due; i++) {
      this.#lastStepMs += every;
      this.#act();
    }
  }

  #act(): void {
    this.#live = true;
    this.#steps += 1;
    const online = this.#deps.status.mode === 'online';
    if (online) this.#ensureAccounts();
    const dtSec = this.#config.step_ms / 1000;
    for (const state of this.#pairs.values()) {
      this.#walk(state);
      if (!online) continue;
      this.#cancelSome(state, dtSec);
      this.#requote(state);
      this.#takers(state, dtSec);
    }
  }

  #walk(state: PairState): void {
    state.path.advance();
    const drift = state.path.fair.div(state.gridAnchor).minus(1).abs();
    if (drift.gt(REGRID_DRIFT)) this.#regrid(state);
  }

  #regrid(state: PairState): void {
    state.gridAnchor = state.path.fair;
    state.stepTicks = stepTicks(state.pair, state.path.fair, this.#config.level_step);
  }

  /** The background's half-spread now: makers widen in the volatile regime. */
  #halfSpread(state: PairState): number {
    return this.#config.half_spread * spreadFactor(state.path.regime, this.#config.regimes);
  }

  /**
   * Makers changing their mind: orders picked at random among the pair's background orders
   * (any level, any place in its queue) are cancelled; the requote that follows puts a fresh
   * one at the back of the level. Queues so shrink from the front and the middle, not only
   * from trades.
   */
  #cancelSome(state: PairState, dtSec: number): void {
    const maker = this.#maker as Account;
    const events = this.#rng.poisson(this.#config.makers.cancels_per_sec * dtSec);
    for (let e = 0; e < events; e++) {
      const all = [...state.quotes.values()].flat();
      if (all.length === 0) return;
      const victim = all[Math.floor(this.#rng.uniform() * all.length)] as Quote;
      const key = quoteKey(victim.side, victim.price);
      const rest = (state.quotes.get(key) ?? []).filter((q) => q !== victim);
      if (rest.length > 0) state.quotes.set(key, rest);
      else state.quotes.delete(key);
      const order = this.#deps.engine.order(victim.txid);
      if (order === undefined || !isResting(order.status)) continue;
      this.#guard(() => this.#deps.engine.cancel(maker, order));
      this.#requoted += 1;
    }
  }

  /**
   * Cancels quotes that are off the ladder, then tops every ladder level up to its number of
   * orders. Orders still resting keep their queue place; new ones join the back at a fresh
   * random size.
   */
  #requote(state: PairState): void {
    const { engine } = this.#deps;
    const maker = this.#maker as Account;
    const perLevel = this.#config.makers.orders_per_level;
    const target = ladder(state.pair, state.path.fair, {
      levels: this.#config.levels,
      halfSpread: this.#halfSpread(state),
      stepTicks: state.stepTicks,
    });
    const wanted = new Map<string, { side: Side; price: Decimal }>();
    for (const price of target.bids) wanted.set(quoteKey('buy', price), { side: 'buy', price });
    for (const price of target.asks) wanted.set(quoteKey('sell', price), { side: 'sell', price });

    for (const [key, list] of state.quotes) {
      const orders = list.flatMap((q) => {
        const order = engine.order(q.txid);
        return order !== undefined && isResting(order.status) ? [order] : [];
      });
      if (!wanted.has(key)) {
        for (const order of orders) this.#guard(() => engine.cancel(maker, order));
        state.quotes.delete(key);
      } else if (orders.length === 0) {
        state.quotes.delete(key);
      } else {
        state.quotes.set(
          key,
          list.filter((q) => orders.some((o) => o.txid === q.txid)),
        );
      }
    }
    const mean = this.#config.level_notional / perLevel;
    for (const [key, level] of wanted) {
      const list = state.quotes.get(key) ?? [];
      for (let n = list.length; n < perLevel; n++) {
        const notional = mean * sizeFactor(this.#rng, this.#sizes());
        const volume = volumeFor(state.pair, this.#inQuote(state, notional), level.price);
        const order = this.#guard(() =>
          engine.place(maker, limitSpec(state.pair, level.side, volume, level.price, 'GTC')),
        );
        if (order === undefined) continue;
        this.#placed += 1;
        if (isResting(order.status)) {
          list.push({ side: level.side, price: level.price, txid: order.txid });
        }
      }
      if (list.length > 0) state.quotes.set(key, list);
    }
  }

  #sizes(): { tailAlpha: number; maxFactor: number } {
    const { tail_alpha, max_factor } = this.#config.sizes;
    return { tailAlpha: tail_alpha, maxFactor: max_factor };
  }

  /**
   * Immediate-or-cancel limits a few levels past the touch: they take what is best, then stop.
   * A noise taker picks its side by a coin; an informed one trades toward the fair value it
   * knows ahead and pays no more than that value, so it only takes quotes that are stale.
   */
  #takers(state: PairState, dtSec: number): void {
    const taker = this.#taker as Account;
    const { share } = this.#config.informed;
    const fair = state.path.fair;
    const arrivals = this.#rng.poisson(this.#config.takers_per_sec * dtSec);
    for (let i = 0; i < arrivals; i++) {
      const informed = share > 0 && this.#rng.uniform() < share;
      const known = state.path.known;
      if (informed && known.eq(fair)) continue;
      const side: Side = informed
        ? known.gt(fair)
          ? 'buy'
          : 'sell'
        : this.#rng.uniform() < 0.5
          ? 'buy'
          : 'sell';
      const mean = this.#config.taker_notional * (informed ? this.#config.informed.size_factor : 1);
      const notional = mean * sizeFactor(this.#rng, this.#sizes());
      const reach = this.#halfSpread(state) + TAKER_REACH_LEVELS * this.#config.level_step;
      const bound = informed ? known : fair.times(side === 'buy' ? 1 + reach : 1 - reach);
      // A noise taker's limit rounds outward; an informed one's inward, never past its value.
      const price = onTick(state.pair, bound, informed ? side === 'sell' : side === 'buy');
      if (!price.gt(0)) continue;
      const volume = volumeFor(state.pair, this.#inQuote(state, notional), fair);
      const order = this.#guard(() =>
        this.#deps.engine.place(taker, limitSpec(state.pair, side, volume, price, 'IOC')),
      );
      if (order === undefined) continue;
      this.#placed += 1;
      if (informed) this.#informed += 1;
    }
  }

  /** Engine refusals are part of a market's life; anything else is a bug and propagates. */
  #guard<T>(action: () => T): T | undefined {
    try {
      return action();
    } catch (err) {
      if (err instanceof SimError) {
        this.#rejected += 1;
        return undefined;
      }
      throw err;
    }
  }

  /**
   * Config notionals are USD, so one setting suits XBT/USD and ETH/XBT alike: converted at the
   * fair value of the quote asset's USD pair, or taken as quote currency when there is none.
   */
  #inQuote(state: PairState, usd: number): Decimal {
    const amount = money(usd);
    if (state.pair.quote === USD) return amount;
    for (const other of this.#pairs.values()) {
      if (other.pair.base === state.pair.quote && other.pair.quote === USD) {
        return amount.div(other.path.fair);
      }
    }
    return amount;
  }

  #ensureAccounts(): void {
    const nowMs = this.#deps.clock.now();
    if (this.#maker === undefined || this.#taker === undefined) {
      this.#maker = this.#upsertAccount(BACKGROUND_MAKER_KEY, nowMs);
      this.#taker = this.#upsertAccount(BACKGROUND_TAKER_KEY, nowMs);
      return;
    }
    if (this.#steps % TOP_UP_EVERY_STEPS !== 0) return;
    for (const account of [this.#maker, this.#taker]) {
      // Nobody reads the background's ledger (nobody holds its secret); without a trim it would
      // grow by every print for as long as the simulator runs.
      const excess = account.wallet.ledger.length - LEDGER_KEPT;
      if (excess > 0) account.wallet.ledger.splice(0, excess);
      const low = this.#assets().filter((a) => account.wallet.available(a).lt(HUGE.div(2)));
      if (low.length === 0) continue;
      const balances = Object.fromEntries(
        low.map((a) => [a, HUGE.plus(account.wallet.hold(a)).toFixed()]),
      );
      this.#deps.accounts.upsert(
        { key: account.key, secret: account.secret, kind: 'background', balances },
        nowMs,
      );
    }
  }

  #upsertAccount(key: string, nowMs: number): Account {
    const existing = this.#deps.accounts.get(key);
    const balances = Object.fromEntries(this.#assets().map((a) => [a, HUGE.toFixed()]));
    return this.#deps.accounts.upsert(
      {
        key,
        secret: existing?.secret ?? randomBytes(32).toString('base64'),
        tier: 'pro',
        permissions: [],
        kind: 'background',
        balances,
      },
      nowMs,
    );
  }

  #assets(): string[] {
    const out = new Set<string>();
    for (const { pair } of this.#pairs.values()) {
      out.add(pair.base);
      out.add(pair.quote);
    }
    return [...out];
  }

  #state(pairName: string): PairState | undefined {
    const pair = this.#deps.markets.pair(pairName);
    return pair === undefined ? undefined : this.#pairs.get(pair.id);
  }
}

function isResting(status: string): boolean {
  return status === 'open' || status === 'pending';
}

function quoteKey(side: Side, price: Decimal): string {
  return `${side}:${price.toFixed()}`;
}

/** Config notionals are numbers; cents are plenty. */
function money(value: number): Decimal {
  return new Decimal(value.toFixed(2));
}
