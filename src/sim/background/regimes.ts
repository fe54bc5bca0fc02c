import type { RandomSource } from './random-source.js';

export type Regime = 'calm' | 'volatile';

export interface RegimeShape {
  readonly volatile_factor: number;
  readonly volatile_spread_factor: number;
  readonly calm_mean_s: number;
  readonly volatile_mean_s: number;
}

/** With both factors at 1 the regimes are indistinguishable: the chain is off and draws nothing. */
export function regimesOn(shape: RegimeShape): boolean {
  return shape.volatile_factor !== 1 || shape.volatile_spread_factor !== 1;
}

/**
 * One step of the two-state Markov chain: leaves the current regime with the probability that an
 * exponential stay of the regime's mean length ends within `dtSec`.
 */
export function nextRegime(
  rng: RandomSource,
  current: Regime,
  shape: RegimeShape,
  dtSec: number,
): Regime {
  if (!regimesOn(shape)) return current;
  const mean = current === 'calm' ? shape.calm_mean_s : shape.volatile_mean_s;
  const leave = 1 - Math.exp(-dtSec / mean);
  if (rng.uniform() >= leave) return current;
  return current === 'calm' ? 'volatile' : 'calm';
}

export function volatilityFactor(regime: Regime, shape: RegimeShape): number {
  return regime === 'volatile' ? shape.volatile_factor : 1;
}

export function spreadFactor(regime: Regime, shape: RegimeShape): number {
  return regime === 'volatile' ? shape.volatile_spread_factor : 1;
}
