import type { RandomSource } from './random-source.js';

export interface SizeShape {
  /** Pareto tail index, above 1; 0 = uniform ±50 %. */
  readonly tailAlpha: number;
  /** Cap, as a multiple of the mean. */
  readonly maxFactor: number;
}

/**
 * A multiple of an order's mean size: uniform in [0.5, 1.5), or Pareto scaled to a mean of 1
 * (before the cap), so most orders are small and a few are many times the mean, as on a venue.
 * One draw either way, so the uniform case replays the old market's sizes.
 */
export function sizeFactor(rng: RandomSource, shape: SizeShape): number {
  const u = rng.uniform();
  if (shape.tailAlpha === 0) return 0.5 + u;
  const a = shape.tailAlpha;
  const scale = (a - 1) / a;
  return Math.min(scale / Math.pow(1 - u, 1 / a), shape.maxFactor);
}
