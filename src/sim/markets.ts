import { Decimal, dec } from '../core/index.js';
import type { AssetConfig, PairConfig } from './config.js';
import { SimError } from './errors.js';

export interface SimAsset extends AssetConfig {
  readonly collateral_value: number;
}

/** A pair with its rules parsed once. */
export interface SimPair extends PairConfig {
  readonly tick: Decimal;
  readonly orderMin: Decimal;
  readonly costMin: Decimal;
  readonly initialPrice: Decimal;
}

/**
 * Assets and pairs, looked up the ways clients name them: pair id (`XXBTZUSD`), altname
 * (`XBTUSD`) or wsname (`XBT/USD`); asset id (`XXBT`) or altname (`XBT`).
 */
export class Markets {
  readonly assets: readonly SimAsset[];
  readonly pairs: readonly SimPair[];
  readonly #pairByName = new Map<string, SimPair>();
  readonly #assetByName = new Map<string, SimAsset>();

  constructor(assets: readonly AssetConfig[], pairs: readonly PairConfig[]) {
    this.assets = assets.map((a) => ({ ...a, collateral_value: a.collateral_value ?? 1 }));
    this.pairs = pairs.map((p) => ({
      ...p,
      tick: dec(p.tick_size),
      orderMin: dec(p.ordermin),
      costMin: dec(p.costmin),
      initialPrice: dec(p.initial_price),
    }));
    for (const a of this.assets) {
      this.#assetByName.set(a.id, a);
      this.#assetByName.set(a.altname, a);
    }
    for (const p of this.pairs) {
      for (const name of [p.id, p.altname, p.wsname]) this.#pairByName.set(name, p);
    }
  }

  pair(name: string): SimPair | undefined {
    return this.#pairByName.get(name);
  }

  /** The pair a request names, or `EQuery:Unknown asset pair` as the exchange answers. */
  requirePair(name: unknown): SimPair {
    const pair = typeof name === 'string' ? this.#pairByName.get(name) : undefined;
    if (pair === undefined) throw new SimError('EQuery:Unknown asset pair');
    return pair;
  }

  asset(name: string): SimAsset | undefined {
    return this.#assetByName.get(name);
  }

  requireAsset(name: unknown): SimAsset {
    const asset = typeof name === 'string' ? this.#assetByName.get(name) : undefined;
    if (asset === undefined) throw new SimError('EQuery:Unknown asset');
    return asset;
  }

  /** Fee percent for a 30-day USD volume on the pair's ladder (taker or maker). */
  feePercent(pair: SimPair, volumeUsd: Decimal, maker: boolean): Decimal {
    const ladder = maker ? pair.fees_maker : pair.fees;
    let pct = ladder[0]?.[1] ?? 0;
    for (const [threshold, percent] of ladder) if (volumeUsd.gte(threshold)) pct = percent;
    return new Decimal(pct);
  }
}
