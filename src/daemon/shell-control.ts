import type { Redis } from 'ioredis';
import { PulledPairs, RedisControlFlags, type ControlFlags, type PullState } from '../bus/index.js';
import { InvalidInputError, systemClock, type Log } from '../core/index.js';
import { loadPairs } from '../market/index.js';
import { AuditTrail } from './audit-trail.js';
import type { BotSettings } from './bot-config.js';
import {
  ControlActions,
  type ActionOutcome,
  type Actor,
  type ControlActionsParts,
} from './control-actions.js';
import { resolveCredentials } from './credentials.js';
import { haltAndCancel } from './halt-action.js';
import { connectRedis, keyClient } from './role-base.js';
import { carryRestLevel, restLevelKeyFor } from './rest-level.js';
import { pairNamed } from './traded-pairs.js';

/**
 * A control action on a deployment through its Redis, from outside its processes (`makerd halt
 * --config` and the like): the halt flag and pulls every role obeys, the audit trail it goes to.
 */
export interface ShellControl {
  readonly settings: BotSettings;
  /** The config's folder: credential files are named relative to it. */
  readonly configDir: string;
  readonly actor: Actor;
  /** Where an audit entry that could not be written is said. */
  readonly log: Log;
}

/**
 * Sets the halt flag and cancels every order of the key itself, so it works while the supervisor
 * is down.
 */
export function haltDeployment(
  c: ShellControl,
  reason: string,
): ReturnType<ControlActions['halt']> {
  return withFlags(c.settings, async (flags, redis) => {
    const credentials = resolveCredentials(c.settings.exchange, process.env, c.configDir);
    const client = keyClient(c.settings, redis, credentials, systemClock);
    // The cancels count on the key's REST counter with the running bot's calls (rest-level.ts).
    const { limiter } = client;
    const level =
      limiter === undefined
        ? undefined
        : await carryRestLevel(redis, restLevelKeyFor(credentials.apiKey), limiter, c.log).catch(
            async (err: unknown) => {
              await client.close();
              throw err;
            },
          );
    try {
      return await controlActions(c, redis, flags, {
        halt: (why, by) => haltAndCancel(flags, client, why, by, systemClock),
      }).halt(c.actor, reason);
    } finally {
      level?.close();
      await client.close();
    }
  });
}

export function resumeDeployment(c: ShellControl): ReturnType<ControlActions['resume']> {
  return withFlags(c.settings, (flags, redis) => controlActions(c, redis, flags).resume(c.actor));
}

/** Stops quoting one pair (the runner reads it within a second); `state`: the pull now in force. */
export function pullPair(
  c: ShellControl,
  name: string,
  reason: string,
): Promise<ActionOutcome & { readonly pair: string; readonly state: PullState | undefined }> {
  return withPair(c, name, async (pair, actions, pulled) => {
    const done = await actions.pull(c.actor, pair, reason);
    return { ...done, pair, state: pulled.current().get(pair) };
  });
}

export function restorePair(
  c: ShellControl,
  name: string,
): Promise<ActionOutcome & { readonly pair: string }> {
  return withPair(c, name, async (pair, actions) => ({
    ...(await actions.restore(c.actor, pair)),
    pair,
  }));
}

/** The actions on the config's Redis; `halt` only where the command halts. */
function controlActions(
  c: ShellControl,
  redis: Redis,
  flags: ControlFlags,
  parts: Partial<Pick<ControlActionsParts, 'halt' | 'pulled'>> = {},
): ControlActions {
  const { prefix } = c.settings.redis;
  return new ControlActions({
    flags,
    pulled: parts.pulled ?? new PulledPairs(redis, prefix),
    trail: new AuditTrail(redis, prefix),
    clock: systemClock,
    log: c.log,
    halt: parts.halt ?? (() => Promise.reject(new Error('this command does not halt'))),
  });
}

/**
 * The config's pair named (its id or altname, any case) as the runner keys pulls: the altname
 * the exchange gives it (AssetPairs), so a pull can never miss the pair it names.
 */
async function withPair<T>(
  c: ShellControl,
  name: string,
  work: (altname: string, actions: ControlActions, pulled: PulledPairs) => Promise<T>,
): Promise<T> {
  const { settings } = c;
  const credentials = resolveCredentials(settings.exchange, process.env, c.configDir);
  return withFlags(settings, async (flags, redis) => {
    const client = keyClient(settings, redis, credentials, systemClock);
    try {
      const pairs = await loadPairs(
        client,
        settings.pairs.map((p) => p.pair),
      );
      const found = pairNamed(pairs, name);
      if (found === undefined) {
        throw new InvalidInputError(
          'pair',
          `${name} is not traded by this config (${pairs.map((p) => p.altname).join(', ')})`,
        );
      }
      const pulled = new PulledPairs(redis, settings.redis.prefix);
      return await work(found.altname, controlActions(c, redis, flags, { pulled }), pulled);
    } finally {
      await client.close();
    }
  });
}

function withFlags<T>(
  settings: BotSettings,
  work: (flags: ControlFlags, redis: Redis) => Promise<T>,
): Promise<T> {
  return withRedis(settings, (redis) =>
    work(new RedisControlFlags({ connection: redis, prefix: settings.redis.prefix }), redis),
  );
}

/** The config's Redis for one command: one attempt to connect (one line if it fails), closed afterwards. */
export async function withRedis<T>(
  settings: BotSettings,
  work: (redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = await connectRedis(settings.redis.url, {
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}
