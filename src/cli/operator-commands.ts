import { hostname, userInfo } from 'node:os';
import { Redis } from 'ioredis';
import { RedisControlFlags, type ControlFlags, PulledPairs } from '../bus/index.js';
import {
  InvalidInputError,
  MakerdError,
  errorMessage,
  systemClock,
  type PairInfo,
} from '../core/index.js';
import { haltAndCancel } from '../daemon/halt-action.js';
import type { BotSettings } from '../daemon/bot-config.js';
import { optionalSecretFromEnv, resolveCredentials } from '../daemon/credentials.js';
import { keyClient } from '../daemon/role-base.js';
import { redisStores } from '../daemon/stores.js';
import { ratecountKeyFor } from '../executor/index.js';
import { loadPairs } from '../market/index.js';
import { loadSettings } from './role-command.js';
import { formatStatus, readStatus, type StatusReport } from '../daemon/status-report.js';

export interface FlagCommandOptions {
  readonly config?: string;
}

/**
 * The operator's commands: `makerd halt` and `makerd resume` set and clear the halt flag that
 * every role obeys (a halt also cancels every order of the key itself, so it works while the
 * supervisor is down); `makerd pull` and `restore` stop and restart one pair's quotes;
 * `makerd status` reads what the roles left in Redis.
 */
export async function runHalt(opts: FlagCommandOptions & { reason: string }): Promise<void> {
  const { settings, dir } = loadSettings(opts.config);
  const by = operatorName();
  await withFlags(settings, async (flags, redis) => {
    const client = keyClient(
      settings,
      redis,
      resolveCredentials(settings.exchange, process.env, dir),
      systemClock,
    );
    try {
      const outcome = await haltAndCancel(flags, client, opts.reason, by, systemClock);
      if (typeof outcome.cancelled === 'string') process.exitCode = 1;
      const state = flags.current();
      print({
        halted: true,
        already: !outcome.set,
        reason: state.reason,
        by: state.by,
        sinceMs: state.sinceMs,
        cancelled: outcome.cancelled,
      });
    } finally {
      await client.close();
    }
  });
}

export async function runResume(opts: FlagCommandOptions): Promise<void> {
  const { settings } = loadSettings(opts.config);
  await withFlags(settings, async (flags) => {
    const before = await flags.read();
    const cleared = await flags.resume();
    print({ resumed: cleared, was: before.halted ? before.reason : 'not halted' });
  });
}

/** `makerd pull PAIR`: the console's pull, for a shell (the runner reads it within a second). */
export async function runPull(
  pair: string,
  opts: FlagCommandOptions & { reason: string },
): Promise<void> {
  await withPair(opts, pair, async (altname, pulled) => {
    const set = await pulled.pull(altname, {
      by: operatorName(),
      reason: opts.reason,
      sinceMs: Date.now(),
    });
    print({ pulled: altname, already: !set, ...pulled.current().get(altname) });
  });
}

export async function runRestore(pair: string, opts: FlagCommandOptions): Promise<void> {
  await withPair(opts, pair, async (altname, pulled) => {
    const restored = await pulled.restore(altname);
    print({ restored: altname, was: restored ? 'pulled' : 'not pulled' });
  });
}

/**
 * The config's pair named (its id or altname, any case) as the runner keys pulls: the altname
 * the exchange gives it (AssetPairs), so a pull can never miss the pair it names.
 */
async function withPair(
  opts: FlagCommandOptions,
  name: string,
  work: (altname: string, pulled: PulledPairs) => Promise<void>,
): Promise<void> {
  await withConfiguredPairs(opts, async ({ settings, redis, pairs }) => {
    const wanted = name.toUpperCase();
    const found = pairs.find((p) => [p.id, p.altname].some((n) => n.toUpperCase() === wanted));
    if (found === undefined) {
      throw new InvalidInputError(
        'pair',
        `${name} is not traded by this config (${pairs.map((p) => p.altname).join(', ')})`,
      );
    }
    await work(found.altname, new PulledPairs(redis, settings.redis.prefix));
  });
}

/** The config's Redis and flags, its key's client, and its pairs as the exchange describes them. */
async function withConfiguredPairs(
  opts: FlagCommandOptions,
  work: (ctx: {
    settings: BotSettings;
    flags: ControlFlags;
    redis: Redis;
    client: ReturnType<typeof keyClient>;
    pairs: PairInfo[];
    apiKey: string;
  }) => Promise<void>,
): Promise<void> {
  const { settings, dir } = loadSettings(opts.config);
  const credentials = resolveCredentials(settings.exchange, process.env, dir);
  await withFlags(settings, async (flags, redis) => {
    const client = keyClient(settings, redis, credentials, systemClock);
    try {
      const pairs = await loadPairs(
        client,
        settings.pairs.map((p) => p.pair),
      );
      await work({ settings, flags, redis, client, pairs, apiKey: credentials.apiKey });
    } finally {
      await client.close();
    }
  });
}

function operatorName(): string {
  return `operator:${userInfo().username}@${hostname()}`;
}

export async function runStatus(
  opts: FlagCommandOptions & { json?: boolean; http?: string },
): Promise<void> {
  if (opts.http !== undefined) {
    const report = await statusOverHttp(opts.http, process.env);
    process.stdout.write(opts.json === true ? `${JSON.stringify(report)}\n` : formatStatus(report));
    return;
  }
  await withConfiguredPairs(opts, async ({ settings, flags, redis, client, pairs, apiKey }) => {
    const stores = redisStores({
      redis,
      prefix: settings.redis.prefix,
      ratecountKey: ratecountKeyFor(apiKey),
      tier: client.tier,
      clock: systemClock,
    });
    let report: StatusReport;
    try {
      report = await readStatus({ stores: { ...stores, flags }, pairs, clock: systemClock });
    } finally {
      await stores.close();
    }
    process.stdout.write(opts.json === true ? `${JSON.stringify(report)}\n` : formatStatus(report));
  });
}

/**
 * /status of a running process (which needs no exchange call: the demo's simulator sits on a
 * port of its own). The bearer token, when the endpoint wants one, comes from MAKERD_HTTP_TOKEN.
 */
async function statusOverHttp(url: string, env: NodeJS.ProcessEnv): Promise<StatusReport> {
  const token = optionalSecretFromEnv('MAKERD_HTTP_TOKEN', env);
  let res: Response;
  try {
    res = await fetch(new URL('/status', url), {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
  } catch (err) {
    throw new MakerdError('UNREACHABLE', `no answer from ${url}: ${errorMessage(err)}`);
  }
  if (!res.ok) throw new MakerdError('UNREACHABLE', `${url}/status answered ${res.status}`);
  return (await res.json()) as StatusReport;
}

async function withFlags(
  settings: BotSettings,
  work: (flags: ControlFlags, redis: Redis) => Promise<void>,
): Promise<void> {
  const redis = new Redis(settings.redis.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await work(new RedisControlFlags({ connection: redis, prefix: settings.redis.prefix }), redis);
  } finally {
    redis.disconnect();
  }
}

function print(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
