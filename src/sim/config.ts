import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { parse as parseYaml } from 'yaml';
import { InvalidInputError, parseWithSchema } from '../core/index.js';
import { TIERS } from '../exchange/limits/index.js';
import { PERMISSIONS } from './state/permissions.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from './defaults.js';

const DecimalText = Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' });
const FeeTier = Type.Tuple([Type.Number({ minimum: 0 }), Type.Number({ minimum: 0 })]);

export const AssetConfig = Type.Object({
  id: Type.String({ minLength: 1 }),
  altname: Type.String({ minLength: 1 }),
  decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  display_decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  collateral_value: Type.Optional(Type.Number({ minimum: 0 })),
});
export type AssetConfig = Static<typeof AssetConfig>;

export const PairConfig = Type.Object({
  /** Pair id as the exchange keys it, e.g. XXBTZUSD. */
  id: Type.String({ minLength: 1 }),
  altname: Type.String({ minLength: 1 }),
  wsname: Type.String({ minLength: 1 }),
  base: Type.String({ minLength: 1 }),
  quote: Type.String({ minLength: 1 }),
  pair_decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  lot_decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  cost_decimals: Type.Integer({ minimum: 0, maximum: 18 }),
  ordermin: DecimalText,
  costmin: DecimalText,
  tick_size: DecimalText,
  /** Taker fee tiers: [30-day volume in USD, percent]. */
  fees: Type.Array(FeeTier, { minItems: 1 }),
  fees_maker: Type.Array(FeeTier, { minItems: 1 }),
  /** Fair value the background market starts from. */
  initial_price: DecimalText,
});
export type PairConfig = Static<typeof PairConfig>;

export const AccountConfig = Type.Object({
  key: Type.String({ minLength: 1 }),
  /** Base64, as the exchange issues secrets. */
  secret: Type.String({ minLength: 4, pattern: '^[A-Za-z0-9+/]+={0,2}$' }),
  tier: Type.Union(
    TIERS.map((t) => Type.Literal(t)),
    { default: 'starter' },
  ),
  permissions: Type.Array(Type.Union(PERMISSIONS.map((p) => Type.Literal(p))), {
    default: [...PERMISSIONS],
  }),
  balances: Type.Record(Type.String(), DecimalText, { default: {} }),
  /** Nonces may arrive this far below the highest seen and still pass, once each. */
  nonce_window: Type.Integer({ minimum: 0, default: 0 }),
  /** When set, private calls must carry this otp. */
  otp: Type.Optional(Type.String({ minLength: 1 })),
});
export type AccountConfig = Static<typeof AccountConfig>;

export const DecayConfig = Type.Object({
  max: Type.Number({ exclusiveMinimum: 0 }),
  decay_per_sec: Type.Number({ exclusiveMinimum: 0 }),
});

/** Takers who know where fair value will be and trade only toward it: adverse selection. */
export const InformedConfig = Type.Object(
  {
    /** Share of taker arrivals that are informed (0 = every taker is noise, the old market). */
    share: Type.Number({ minimum: 0, maximum: 1, default: 0.7 }),
    /** How far ahead an informed taker knows fair value, in seconds. */
    horizon_s: Type.Number({ exclusiveMinimum: 0, maximum: 300, default: 10 }),
    /** Mean informed order notional as a multiple of `taker_notional`: they size up on news. */
    size_factor: Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 3 }),
  },
  { default: {} },
);

/** Calm and volatile periods, switching as a two-state Markov chain per pair. */
export const RegimeConfig = Type.Object(
  {
    /** Volatility multiplier in the volatile regime; 1 = one regime, as the old market. */
    volatile_factor: Type.Number({ minimum: 1, maximum: 100, default: 3 }),
    /** Background half-spread multiplier in the volatile regime: makers widen when it moves. */
    volatile_spread_factor: Type.Number({ minimum: 1, maximum: 100, default: 2 }),
    /** Mean time spent in each regime before switching, in seconds. */
    calm_mean_s: Type.Number({ exclusiveMinimum: 0, default: 240 }),
    volatile_mean_s: Type.Number({ exclusiveMinimum: 0, default: 60 }),
  },
  { default: {} },
);

/** Order sizes: Pareto around the configured mean notionals, capped. */
export const SizeConfig = Type.Object(
  {
    /** Pareto tail index (above 1, smaller = heavier); 0 = uniform ±50 %, the old market. */
    tail_alpha: Type.Number({ minimum: 0, maximum: 10, default: 1.6 }),
    /** No order above this multiple of its mean notional. */
    max_factor: Type.Number({ minimum: 1, maximum: 1000, default: 25 }),
  },
  { default: {} },
);

/** The background makers' queues: several orders per level, cancelled and replaced at random. */
export const MakerConfig = Type.Object(
  {
    /** Orders resting at each background level, sharing `level_notional`. */
    orders_per_level: Type.Integer({ minimum: 1, maximum: 20, default: 3 }),
    /**
     * Cancel-and-replace events per second per pair: each cancels one background order chosen at
     * random (any level, any queue position) and places a fresh one at the back of its level.
     */
    cancels_per_sec: Type.Number({ minimum: 0, maximum: 1000, default: 3 }),
  },
  { default: {} },
);

export const BackgroundConfig = Type.Object(
  {
    enabled: Type.Boolean({ default: true }),
    seed: Type.Integer({ default: 1 }),
    /** How often the synthetic participants act. */
    step_ms: Type.Integer({ minimum: 10, default: 250 }),
    /** Standard deviation of the fair value's log-return per second (calm regime). */
    volatility_per_sec: Type.Number({ minimum: 0, default: 0.0004 }),
    /** Mean number of taker orders per second per pair. */
    takers_per_sec: Type.Number({ minimum: 0, default: 1.5 }),
    /** Resting levels per side kept around fair value. */
    levels: Type.Integer({ minimum: 1, maximum: 100, default: 12 }),
    /** Half-spread of the background quotes as a fraction of fair value (calm regime). */
    half_spread: Type.Number({ minimum: 0, default: 0.0005 }),
    /** Distance between background levels as a fraction of fair value. */
    level_step: Type.Number({ exclusiveMinimum: 0, default: 0.0004 }),
    /** Mean notional in USD per background level, converted through <quote>/USD. */
    level_notional: Type.Number({ exclusiveMinimum: 0, default: 20000 }),
    /** Mean taker order notional in USD. */
    taker_notional: Type.Number({ exclusiveMinimum: 0, default: 3000 }),
    informed: InformedConfig,
    regimes: RegimeConfig,
    sizes: SizeConfig,
    makers: MakerConfig,
  },
  { default: {} },
);
export type BackgroundConfig = Static<typeof BackgroundConfig>;

export const SimConfig = Type.Object({
  host: Type.String({ default: '127.0.0.1' }),
  port: Type.Integer({ minimum: 0, maximum: 65535, default: 7878 }),
  assets: Type.Array(AssetConfig, { default: DEFAULT_ASSETS }),
  pairs: Type.Array(PairConfig, { default: DEFAULT_PAIRS }),
  accounts: Type.Array(AccountConfig, { default: [] }),
  background: BackgroundConfig,
  /** Public requests per client address, as a leaky counter (1 point a call). */
  public_limit: Type.Object(
    {
      max: Type.Number({ exclusiveMinimum: 0 }),
      decay_per_sec: Type.Number({ exclusiveMinimum: 0 }),
    },
    { default: { max: 100, decay_per_sec: 20 } },
  ),
  /** Consecutive EAPI:Invalid key answers from one address before EGeneral:Temporary lockout. */
  invalid_key_lockout: Type.Object(
    {
      threshold: Type.Integer({ minimum: 1 }),
      duration_ms: Type.Integer({ minimum: 0 }),
    },
    { default: { threshold: 10, duration_ms: 30_000 } },
  ),
  /** How long a key stays restricted after EAPI:Rate limit exceeded; calls during it extend it. */
  rate_limit_restriction_ms: Type.Integer({ minimum: 0, default: 3_000 }),
  /**
   * Off only for load tests and benchmarks: the REST counter, ratecount and public limit are then
   * not enforced (nothing else changes). A paper-trading simulator keeps them on.
   */
  enforce_limits: Type.Boolean({ default: true }),
  /** How often timers (GTD expiry, starttm, triggers, dead-man, async jobs) are checked. */
  tick_ms: Type.Integer({ minimum: 1, default: 100 }),
});
export type SimConfig = Static<typeof SimConfig>;
export type DecayConfig = Static<typeof DecayConfig>;

/** Validates a config object (from YAML or code), filling defaults; errors name the field. */
export function parseSimConfig(value: unknown): SimConfig {
  const config = parseWithSchema(SimConfig, value, 'sim');
  checkReferences(config);
  return config;
}

export function loadSimConfig(file: string): SimConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InvalidInputError('config', `cannot read ${file}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (err) {
    throw new InvalidInputError('config', `${file} is not valid YAML: ${(err as Error).message}`);
  }
  return parseSimConfig(value);
}

function checkReferences(config: SimConfig): void {
  const alpha = config.background.sizes.tail_alpha;
  if (alpha !== 0 && alpha <= 1) {
    // A Pareto tail at or below 1 has no mean, so the configured notionals would mean nothing.
    throw new InvalidInputError(
      'sim.background.sizes.tail_alpha',
      `must be 0 (uniform sizes) or above 1, got ${alpha}`,
    );
  }
  const assets = new Set(config.assets.map((a) => a.id));
  config.pairs.forEach((p, i) => {
    for (const side of ['base', 'quote'] as const) {
      if (!assets.has(p[side])) {
        throw new InvalidInputError(
          `sim.pairs.${i}.${side}`,
          `unknown asset ${JSON.stringify(p[side])}`,
        );
      }
    }
  });
  const keys = new Set<string>();
  config.accounts.forEach((a, i) => {
    if (keys.has(a.key))
      throw new InvalidInputError(
        `sim.accounts.${i}.key`,
        `duplicate key ${JSON.stringify(a.key)}`,
      );
    keys.add(a.key);
    for (const asset of Object.keys(a.balances)) {
      if (!assets.has(asset)) {
        throw new InvalidInputError(`sim.accounts.${i}.balances.${asset}`, 'unknown asset');
      }
    }
  });
}
