import type { Redis } from 'ioredis';
import type { PairInfo } from '../core/index.js';

/** A pair as `makerd status` shows it: the exchange's id (the Redis keys) and altname. */
export type PairName = Pick<PairInfo, 'id' | 'altname'>;

/**
 * The pairs the roles trade, id → altname as the exchange named them, kept in Redis by every role
 * at start: `makerd status` names the pairs from it when the exchange cannot be asked (AssetPairs).
 * Never expires, like the tracker's positions it names; a pair dropped from the config stays.
 */
export function tradedPairsKey(prefix: string): string {
  return `${prefix}:traded-pairs`;
}

export async function recordTradedPairs(
  redis: Redis,
  prefix: string,
  pairs: readonly PairName[],
): Promise<void> {
  if (pairs.length === 0) return;
  await redis.hset(tradedPairsKey(prefix), Object.fromEntries(pairs.map((p) => [p.id, p.altname])));
}

/** By altname; empty when no role has started under the prefix. */
export async function readTradedPairs(redis: Redis, prefix: string): Promise<PairName[]> {
  const names = await redis.hgetall(tradedPairsKey(prefix));
  return Object.entries(names)
    .map(([id, altname]) => ({ id, altname }))
    .sort((a, b) => (a.altname < b.altname ? -1 : a.altname > b.altname ? 1 : 0));
}

/**
 * The pair a command names, by the exchange's id or altname in any case (`xethzusd`, `ETHUSD`):
 * pulls are keyed by altname, so a pull can never miss the pair it names. Undefined: not traded.
 */
export function pairNamed<P extends PairName>(pairs: readonly P[], name: string): P | undefined {
  const wanted = name.trim().toUpperCase();
  return pairs.find((p) => [p.id, p.altname].some((n) => n.toUpperCase() === wanted));
}
