import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { parse as parseYaml } from 'yaml';
import { InvalidInputError, MAX_INSTANCE, parseWithSchema } from '../core/index.js';
import { TIERS } from '../exchange/index.js';
import { MarketConfig } from '../market/index.js';
import { isLoopbackHost } from '../obs/index.js';
import { RunnerConfig } from '../runner/config.js';
import { ExecutorConfig } from '../executor/config.js';
import { SupervisorConfig, checkSupervisorConfig } from '../safety/config.js';

/**
 * The daemon's YAML. Secrets never live here (DESIGN.md §3.9): the key and secret come from the
 * environment or from files named there, except for the simulator's published paper account.
 */
const strict = { additionalProperties: false } as const;

const EnvCredentials = Type.Object(
  {
    from: Type.Literal('env'),
    /** Variables holding the key and secret; `<NAME>_FILE` may name a file instead (Docker secrets). */
    key_env: Type.String({ default: 'MAKERD_API_KEY' }),
    secret_env: Type.String({ default: 'MAKERD_API_SECRET' }),
  },
  strict,
);
const SimulatorCredentials = Type.Object(
  {
    from: Type.Literal('simulator'),
    /** An account of the simulator's YAML; allowed only for a loopback exchange URL. */
    account: Type.String({ default: 'paper-key' }),
    /** Relative to the config file's folder: the default is the simulator YAML beside it. */
    sim_config: Type.String({ default: 'sim.yaml' }),
  },
  strict,
);

const PairEntry = Type.Object(
  {
    /** Pair id, altname or wsname: XXBTZUSD, XBTUSD or XBT/USD. */
    pair: Type.String({ minLength: 1 }),
    strategy: Type.Object(
      {
        /** A built-in name (strategies/), a path, or an npm package name. */
        name: Type.String({ minLength: 1 }),
        options: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
      },
      strict,
    ),
  },
  strict,
);

export const BotConfig = Type.Object(
  {
    /** Tells this bot's orders apart in userrefs (1..127); two bots on one key need different ones. */
    instance: Type.Integer({ minimum: 1, maximum: MAX_INSTANCE, default: 1 }),
    exchange: Type.Object(
      {
        url: Type.String({ default: 'http://127.0.0.1:7878' }),
        tier: Type.Union(
          TIERS.map((t) => Type.Literal(t)),
          { default: 'starter' },
        ),
        /** REST counter points the client never uses, for calls it cannot see. */
        rest_headroom: Type.Number({ minimum: 0, default: 1 }),
        /**
         * The key's nonce window as set at the exchange (nonce units, i.e. ms for our nonces).
         * 0 = none: the key's private calls go one at a time, so they arrive in nonce order, and
         * the roles must share one process (`makerd run`). Set (the same as at the exchange):
         * they overlap, from any number of processes.
         */
        nonce_window: Type.Integer({ minimum: 0, default: 0 }),
        credentials: Type.Union([EnvCredentials, SimulatorCredentials], {
          default: { from: 'env' },
        }),
      },
      { default: {}, additionalProperties: false },
    ),
    redis: Type.Object(
      {
        url: Type.String({ default: 'redis://127.0.0.1:6379' }),
        /** Every key of this bot lives under it; two bots on one Redis need different ones. */
        prefix: Type.String({ minLength: 1, default: 'makerd' }),
      },
      { default: {}, additionalProperties: false },
    ),
    pairs: Type.Array(PairEntry, { minItems: 1 }),
    /** The HTTP endpoint: /status, /metrics, /healthz, POST /halt and /resume. */
    http: Type.Object(
      {
        /** Loopback by default; any other address needs a token. */
        host: Type.String({ minLength: 1, default: '127.0.0.1' }),
        port: Type.Integer({ minimum: 0, maximum: 65_535, default: 9464 }),
        /** Variable holding the bearer token (or `<NAME>_FILE` naming a file); unset: no token. */
        token_env: Type.String({ minLength: 1, default: 'MAKERD_HTTP_TOKEN' }),
      },
      { default: {}, additionalProperties: false },
    ),
    /**
     * Record the market while trading (docs/backtest.md): `true` (into `recordings` beside this
     * file), `{ dir: FOLDER }` (relative to this file's folder), or `false` (default).
     */
    record: Type.Unknown({ default: false }),
    market: Type.Unknown({ default: {} }),
    runner: Type.Unknown({ default: {} }),
    executor: Type.Unknown({ default: {} }),
    supervisor: Type.Unknown({ default: {} }),
    log: Type.Object(
      {
        level: Type.Union(
          ['trace', 'debug', 'info', 'warn', 'error'].map((l) => Type.Literal(l)),
          { default: 'info' },
        ),
      },
      { default: {}, additionalProperties: false },
    ),
  },
  strict,
);

export type BotConfigRaw = Static<typeof BotConfig>;
export interface BotSettings extends Omit<
  BotConfigRaw,
  'record' | 'market' | 'runner' | 'executor' | 'supervisor'
> {
  /** Where the runner records what it polls; the folder as written (relative: to the config's). */
  readonly record: { readonly dir: string } | undefined;
  readonly market: MarketConfig;
  readonly runner: RunnerConfig;
  readonly executor: ExecutorConfig;
  readonly supervisor: SupervisorConfig;
}

/** Deployment overrides: the few values that differ between a laptop, CI and a VPS. */
const ENV_OVERRIDES: ReadonlyArray<
  readonly [string, readonly string[]] | readonly [string, readonly string[], 'integer']
> = [
  ['MAKERD_EXCHANGE_URL', ['exchange', 'url']],
  ['MAKERD_TIER', ['exchange', 'tier']],
  ['MAKERD_REDIS_URL', ['redis', 'url']],
  ['REDIS_URL', ['redis', 'url']],
  ['MAKERD_REDIS_PREFIX', ['redis', 'prefix']],
  ['MAKERD_LOG_LEVEL', ['log', 'level']],
  ['MAKERD_HTTP_HOST', ['http', 'host']],
  ['MAKERD_HTTP_PORT', ['http', 'port'], 'integer'],
];

export function parseBotConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): BotSettings {
  const withEnv = applyEnv(raw, env);
  const base = parseWithSchema(BotConfig, withEnv, '');
  checkUrl('exchange.url', base.exchange.url, ['http:', 'https:']);
  checkUrl('redis.url', base.redis.url, ['redis:', 'rediss:']);
  checkHttpToken(base.http, env);
  const supervisor = parseWithSchema(SupervisorConfig, base.supervisor, 'supervisor');
  checkSupervisorConfig(supervisor);
  return {
    ...base,
    record: parseRecord(base.record),
    market: parseWithSchema(MarketConfig, base.market, 'market'),
    runner: parseWithSchema(RunnerConfig, base.runner, 'runner'),
    executor: parseWithSchema(ExecutorConfig, base.executor, 'executor'),
    supervisor,
  };
}

/** The folder `record: true` records into, beside the config file. */
export const DEFAULT_RECORD_DIR = 'recordings';

function parseRecord(raw: unknown): BotSettings['record'] {
  if (raw === false || raw === undefined || raw === null) return undefined;
  if (raw === true) return { dir: DEFAULT_RECORD_DIR };
  const dir = (raw as { dir?: unknown } | null)?.dir;
  const keys = typeof raw === 'object' && !Array.isArray(raw) ? Object.keys(raw) : [];
  if (typeof dir === 'string' && dir.trim() !== '' && keys.length === 1) return { dir };
  throw new InvalidInputError(
    'record',
    `must be true, false or { dir: FOLDER }, got ${JSON.stringify(raw)}`,
  );
}

/** Refused with the settings, so a client never meets it: parsed, with one of `schemes`. */
function checkUrl(field: string, value: string, schemes: readonly string[]): void {
  let scheme: string | undefined;
  try {
    scheme = new URL(value).protocol;
  } catch {
    scheme = undefined;
  }
  if (scheme !== undefined && schemes.includes(scheme)) return;
  const wanted = schemes.map((s) => `${s}//`).join(' or ');
  throw new InvalidInputError(
    field,
    `must be a URL starting with ${wanted}, got ${JSON.stringify(value)}`,
  );
}

/**
 * Anything that reaches the HTTP endpoint can halt the bot, so off loopback it needs a token. It
 * is refused here, before any role touches Redis or the exchange; the token itself is read (and a
 * file that cannot be read is refused) when the endpoint starts.
 */
function checkHttpToken(http: BotSettings['http'], env: NodeJS.ProcessEnv): void {
  const name = http.token_env;
  if (isLoopbackHost(http.host) || secretIsSet(name, env)) return;
  throw new InvalidInputError(
    'http.token_env',
    `a token is required when http.host is ${http.host}, not loopback (anyone reaching it ` +
      `could halt the bot): set ${name} or ${name}_FILE`,
  );
}

/** Whether `NAME` holds a secret or `NAME_FILE` names a file holding it (Docker secrets). */
export function secretIsSet(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env[name] ?? '') !== '' || (env[`${name}_FILE`] ?? '') !== '';
}

export function loadBotConfig(file: string, env: NodeJS.ProcessEnv = process.env): BotSettings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InvalidInputError('--config', `cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    // The parser's first line says what and where; the code frame after it spans lines.
    const what = ((err as Error).message.split('\n')[0] ?? '').replace(/:$/, '');
    throw new InvalidInputError('--config', `${file} is not valid YAML: ${what}`);
  }
  return parseBotConfig(raw ?? {}, env);
}

function applyEnv(raw: unknown, env: NodeJS.ProcessEnv): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidInputError('config', 'must be a YAML mapping at the top level');
  }
  const out = structuredClone(raw) as Record<string, unknown>;
  // REDIS_URL is the common convention; MAKERD_REDIS_URL, listed first, wins over it.
  const applied = new Set<string>();
  for (const [name, path, type] of ENV_OVERRIDES) {
    const value = env[name];
    const key = path.join('.');
    if (value === undefined || value === '' || applied.has(key)) continue;
    applied.add(key);
    let node = out;
    for (const part of path.slice(0, -1)) {
      const next = node[part];
      node[part] = next !== null && typeof next === 'object' ? next : {};
      node = node[part] as Record<string, unknown>;
    }
    // A number that is not one stays text, so the schema error names the field and the value.
    node[path[path.length - 1] as string] =
      type === 'integer' && /^\d+$/.test(value) ? Number(value) : value;
  }
  return out;
}
