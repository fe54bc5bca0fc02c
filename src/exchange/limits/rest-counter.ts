import type { DecayLimits } from './tiers.js';

/**
 * Float slack for "fits" checks: decay rates such as 0.33 or 2.34 make sums like 15 - 0.33 * t
 * land a few ulps off; a millionth of a point is far below anything the exchange could count.
 */
export const FIT_EPSILON = 1e-6;

/**
 * A leaky counter's level at `nowMs`. A `nowMs` before `atMs` (clock step back, or another
 * process's clock) earns no decay rather than negative decay, which would be optimistic.
 */
export function decayedLevel(
  level: number,
  atMs: number,
  decayPerSec: number,
  nowMs: number,
): number {
  const elapsedMs = Math.max(0, nowMs - atMs);
  return Math.max(0, level - (decayPerSec * elapsedMs) / 1000);
}

/**
 * Whole milliseconds until a counter at `level` (now) leaks enough that `level + points <= limit`.
 * Infinity when `points` alone exceeds `limit`: no amount of waiting makes it fit.
 */
export function msUntilFits(
  level: number,
  decayPerSec: number,
  points: number,
  limit: number,
): number {
  if (points > limit + FIT_EPSILON) return Infinity;
  const excess = level + points - limit;
  if (excess <= FIT_EPSILON) return 0;
  // Rounding can put an exact result a hair above a whole ms (17.1 + 1 - 18 = 0.1000...014);
  // start just below and let the loop step up to the first ms that really fits.
  let ms = Math.max(1, Math.ceil((excess * 1000) / decayPerSec - 1e-6));
  while (decayedLevel(level, 0, decayPerSec, ms) + points > limit + FIT_EPSILON) ms += 1;
  return ms;
}

export interface RestCounterState {
  /** Counter value at `atMs`, before any decay since then. */
  readonly level: number;
  readonly atMs: number;
}

/**
 * Model of one API key's REST call counter. Conservative by construction: a call is counted when
 * it leaves (it reaches the exchange later, after more decay there), and it may only leave when
 * `level + cost <= max`, so the modelled counter never passes the maximum.
 */
export class RestCounter {
  readonly max: number;
  readonly decayPerSec: number;
  #state: RestCounterState;

  constructor(limits: DecayLimits, state: RestCounterState = { level: 0, atMs: 0 }) {
    this.max = limits.max;
    this.decayPerSec = limits.decayPerSec;
    this.#state = state;
  }

  get state(): RestCounterState {
    return this.#state;
  }

  decayed(nowMs: number): number {
    return decayedLevel(this.#state.level, this.#state.atMs, this.decayPerSec, nowMs);
  }

  /** Ms until `cost` fits while keeping `reserve` points free; 0 if it fits now. */
  waitMsFor(cost: number, nowMs: number, reserve = 0): number {
    return msUntilFits(this.decayed(nowMs), this.decayPerSec, cost, this.max - reserve);
  }

  add(cost: number, nowMs: number): number {
    const level = this.decayed(nowMs) + cost;
    this.#state = { level, atMs: Math.max(this.#state.atMs, nowMs) };
    return level;
  }

  /** Raises the model to `level` at `nowMs` if it is lower (what another process left). */
  atLeast(level: number, nowMs: number): void {
    if (level <= this.decayed(nowMs)) return;
    this.#state = { level: Math.min(level, this.max), atMs: Math.max(this.#state.atMs, nowMs) };
  }

  /** The exchange said the counter is over: assume it is at least full. */
  fill(nowMs: number): void {
    const level = Math.max(this.decayed(nowMs), this.max);
    this.#state = { level, atMs: Math.max(this.#state.atMs, nowMs) };
  }
}
