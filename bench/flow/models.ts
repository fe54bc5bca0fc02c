/** The background settings the flow benchmark compares. */

/** The market before issue #33: every taker noise, one regime, uniform sizes, no requotes. */
export const OLD_MODEL = {
  informed: { share: 0 },
  regimes: { volatile_factor: 1, volatile_spread_factor: 1 },
  sizes: { tail_alpha: 0 },
  makers: { orders_per_level: 1, cancels_per_sec: 0 },
};

export interface Model {
  readonly name: string;
  readonly background: Record<string, unknown>;
}

export const MODELS: readonly Model[] = [
  { name: 'old model', background: OLD_MODEL },
  { name: 'new, share 0', background: { informed: { share: 0 } } },
  { name: 'new defaults', background: {} },
];
