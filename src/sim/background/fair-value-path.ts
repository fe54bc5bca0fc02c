import { Decimal } from '../../core/index.js';
import type { RandomSource } from './random-source.js';
import { nextRegime, volatilityFactor, type Regime, type RegimeShape } from './regimes.js';

export interface PathShape {
  /** Standard deviation of the log-return per second in the calm regime. */
  readonly volatilityPerSec: number;
  readonly dtSec: number;
  /** How many steps of the future are drawn in advance (what informed takers know). */
  readonly aheadSteps: number;
  readonly regimes: RegimeShape;
}

interface Point {
  readonly fair: Decimal;
  readonly regime: Regime;
}

/**
 * One pair's fair value: a geometric random walk whose volatility follows the regime chain. The
 * walk is drawn `aheadSteps` steps before the market reaches it, so informed takers can act on
 * where it will be; nobody else looks ahead.
 */
export class FairValuePath {
  readonly #rng: RandomSource;
  readonly #shape: PathShape;
  #now: Point;
  readonly #ahead: Point[] = [];

  constructor(initial: Decimal, rng: RandomSource, shape: PathShape) {
    this.#rng = rng;
    this.#shape = shape;
    this.#now = { fair: initial, regime: 'calm' };
    for (let i = 0; i < shape.aheadSteps; i++) this.#ahead.push(this.#next(this.#last()));
  }

  get fair(): Decimal {
    return this.#now.fair;
  }

  get regime(): Regime {
    return this.#now.regime;
  }

  /** Fair value `aheadSteps` steps from now (now itself when nothing is drawn ahead). */
  get known(): Decimal {
    return this.#last().fair;
  }

  advance(): void {
    if (this.#ahead.length === 0) {
      this.#now = this.#next(this.#now);
      return;
    }
    this.#ahead.push(this.#next(this.#last()));
    this.#now = this.#ahead.shift() as Point;
  }

  /** Moves the whole path (now and what is drawn ahead) so that now is `value`. */
  set(value: Decimal): void {
    const ratio = value.div(this.#now.fair);
    for (let i = 0; i < this.#ahead.length; i++) {
      const p = this.#ahead[i] as Point;
      this.#ahead[i] = { fair: p.fair.times(ratio).toSignificantDigits(15), regime: p.regime };
    }
    this.#now = { fair: value, regime: this.#now.regime };
  }

  #last(): Point {
    return this.#ahead[this.#ahead.length - 1] ?? this.#now;
  }

  #next(from: Point): Point {
    const { dtSec, regimes } = this.#shape;
    const regime = nextRegime(this.#rng, from.regime, regimes, dtSec);
    const sigma =
      this.#shape.volatilityPerSec * volatilityFactor(regime, regimes) * Math.sqrt(dtSec);
    const z = this.#rng.gaussian();
    if (sigma === 0) return { fair: from.fair, regime };
    const factor = new Decimal(Math.exp(sigma * z));
    return { fair: from.fair.times(factor).toSignificantDigits(15), regime };
  }
}
