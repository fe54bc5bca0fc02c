import { createHash } from 'node:crypto';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { Decimal, isDecimalString } from '../../core/index.js';
import { invalidArguments } from '../errors.js';
import type { SimRequest } from '../http/route.js';
import type { SimAsset } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { requireText } from './order-params.js';

/** Helpers shared by the endpoint files of the rest of the spec (funding, earn, pay, ...). */

type Params = Readonly<Record<string, unknown>>;

/** The authenticated caller; the door guarantees one for every private/futures/custody route. */
export function callerOf(req: SimRequest): Account {
  if (req.account === undefined) throw new Error(`${req.name} reached a handler without a key`);
  return req.account;
}

/** A positive decimal with at most `decimals` places (the asset's precision). */
export function positiveAmount(value: string, field: string, decimals: number): Decimal {
  if (!isDecimalString(value) || value.startsWith('-') || value.startsWith('+')) {
    throw invalidArguments(field);
  }
  const d = new Decimal(value);
  if (d.lte(0) || d.decimalPlaces() > decimals) throw invalidArguments(field);
  return d;
}

export function requireAmount(params: Params, field: string, asset: SimAsset): Decimal {
  return positiveAmount(requireText(params, field), field, asset.decimals);
}

/**
 * Deterministic numbers in [0, 1) from a seed text, so seeded catalogues (OTC history, fills,
 * NFTs) are the same for a key on every run.
 */
export function seededRandom(seed: string): () => number {
  const rng = xoroshiro128plus(createHash('sha256').update(seed).digest().readInt32LE(0));
  return () => uniformFloat64(rng);
}
