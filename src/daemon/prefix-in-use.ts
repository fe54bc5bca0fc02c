import { tmpdir } from 'node:os';
import type { Redis } from 'ioredis';
import { ROLES, RedisControlFlags } from '../bus/index.js';
import { PairLease, beaconEnded, beaconOf } from '../executor/index.js';

/** A makerd process found working a deployment's prefix. */
export interface PrefixUser {
  /** How long ago its roles last beat; undefined when none has a beat left. */
  readonly beatAgeMs: number | undefined;
}

/**
 * Whether a makerd process works the deployment under `prefix` now: its executor holds a pair's
 * lease (renewed every few seconds while it runs) and its beacon does not prove it ended. A
 * process that stopped gave its leases back; one that died on this machine left leases its
 * beacon proves ended, and one elsewhere left leases that run out within their TTL. Its beats,
 * which outlive a stop or a crash by up to BEAT_TTL_MS, only say how long ago it was seen.
 */
export async function prefixUser(
  redis: Redis,
  prefix: string,
  nowMs: number,
  beaconDir: string = tmpdir(),
): Promise<PrefixUser | undefined> {
  const holders = await leaseHolders(redis, prefix);
  const ended = await Promise.all(
    holders.map(async (token) => {
      const beacon = beaconOf(token);
      return beacon !== undefined && (await beaconEnded(beaconDir, beacon));
    }),
  );
  if (!ended.includes(false)) return undefined;
  const flags = new RedisControlFlags({ connection: redis, prefix, subscribe: false });
  const beats = (await Promise.all(ROLES.map((role) => flags.alive(role)))).filter(
    (at): at is number => at !== undefined,
  );
  return { beatAgeMs: beats.length === 0 ? undefined : Math.max(0, nowMs - Math.max(...beats)) };
}

/** The tokens of the pair leases held under `prefix`. */
async function leaseHolders(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(
      cursor,
      'MATCH',
      PairLease.keyFor(prefix, '*'),
      'COUNT',
      500,
    );
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  if (keys.length === 0) return [];
  return (await redis.mget(...keys)).filter((token): token is string => token !== null);
}
