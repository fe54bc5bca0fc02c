import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { parse as parseYaml } from 'yaml';
import { InvalidInputError, MAX_INSTANCE, parseWithSchema } from '../core/index.js';
import { TIERS } from '../exchange/index.js';
import { MarketConfig } from '../market/index.js';
import { parsePublicOrigin, parseTrustedProxies, reachableFromElsewhere } from '../obs/index.js';
import { RunnerConfig } from '../runner/config.js';
import { ExecutorConfig, checkExecutorConfig } from '../executor/config.js';
import { SupervisorConfig, checkSupervisorConfig } from '../safety/config.js';
import { packageFile } from './package-file.js';

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
        /**
         * Variable holding the control token (or `<NAME>_FILE` naming a file): it reads and acts
         * (halt, resume, pull, restore). Unset: no token, which only a loopback host allows.
         */
        token_env: Type.String({ minLength: 1, default: 'MAKERD_HTTP_TOKEN' }),
        /** Variable holding the read token (or `<NAME>_FILE`): GET only (status, metrics, stream). */
        read_token_env: Type.String({ minLength: 1, default: 'MAKERD_HTTP_READ_TOKEN' }),
        /** Console pages open at once; one more gets 503 (each costs a socket, not a read). */
        max_streams: Type.Integer({ minimum: 1, maximum: 10_000, default: 32 }),
        /**
         * Behind a reverse proxy: the origin the browser shows (`https://makerd.example.com`),
         * which the Host and cross-site checks accept besides the endpoint's own. Needs a token.
         */
        public_origin: Type.Optional(Type.String({ minLength: 1 })),
        /** Addresses whose X-Forwarded-For and X-Forwarded-Proto are believed; none by default. */
        trusted_proxies: Type.Array(Type.String(), { default: [] }),
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
  const { config, setBy } = applyEnv(raw, env);
  try {
    return parseSettings(config, env);
  } catch (err) {
    // A value from the environment is not in the file: the message names where it came from.
    const variable =
      err instanceof InvalidInputError
        ? [...setBy].find(([path]) => err.field === path || err.field.startsWith(`${path}.`))
        : undefined;
    if (variable === undefined || !(err instanceof InvalidInputError)) throw err;
    throw new InvalidInputError(`${err.field} (set by ${variable[1]})`, err.reason);
  }
}

function parseSettings(withEnv: unknown, env: NodeJS.ProcessEnv): BotSettings {
  const base = parseWithSchema(BotConfig, withEnv, '');
  checkUrl('exchange.url', base.exchange.url, ['http:', 'https:']);
  checkUrl('redis.url', base.redis.url, ['redis:', 'rediss:']);
  const http = {
    ...base.http,
    ...(base.http.public_origin === undefined
      ? {}
      : { public_origin: parsePublicOrigin(base.http.public_origin) }),
    trusted_proxies: parseTrustedProxies(base.http.trusted_proxies),
  };
  checkHttpToken(http, env);
  const supervisor = parseWithSchema(SupervisorConfig, base.supervisor, 'supervisor');
  checkSupervisorConfig(supervisor);
  const executor = parseWithSchema(ExecutorConfig, base.executor, 'executor');
  checkExecutorConfig(executor);
  return {
    ...base,
    http,
    record: parseRecord(base.record),
    market: parseWithSchema(MarketConfig, base.market, 'market'),
    runner: parseWithSchema(RunnerConfig, base.runner, 'runner'),
    executor,
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
 * Anything that reaches the HTTP endpoint can halt the bot, so off loopback (or published by a
 * reverse proxy) it needs a token. It is refused here, before any role touches Redis or the
 * exchange; the token itself is read (and a file that cannot be read is refused) when the
 * endpoint starts.
 */
function checkHttpToken(http: BotSettings['http'], env: NodeJS.ProcessEnv): void {
  const name = http.token_env;
  if (secretIsSet(http.read_token_env, env) && !secretIsSet(name, env)) {
    throw new InvalidInputError(
      'http.read_token_env',
      `${http.read_token_env} is set but the control token is not (anyone reaching the endpoint ` +
        `could act where the read token only watches): set ${name} or ${name}_FILE too`,
    );
  }
  if (!reachableFromElsewhere(http.host, http.public_origin) || secretIsSet(name, env)) return;
  const where =
    http.public_origin === undefined
      ? `http.host is ${http.host}, not loopback`
      : `http.public_origin is set (a reverse proxy publishes the endpoint)`;
  throw new InvalidInputError(
    'http.token_env',
    `a token is required when ${where} (anyone reaching it could halt the bot): set ${name} or ` +
      `${name}_FILE`,
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
  const settings = parseBotConfig(raw ?? {}, env);
  checkSimulatorFile(settings, dirname(file));
  return settings;
}

/**
 * The simulator's YAML that `from: simulator` credentials read the account from, where the config
 * says: relative to the config file's folder. A copy of config/paper.yaml elsewhere finds no
 * sim.yaml beside it; say which option names it, before any role starts.
 */
export function simulatorFile(settings: BotSettings, configDir: string): string | undefined {
  const credentials = settings.exchange.credentials;
  return credentials.from === 'simulator' ? resolve(configDir, credentials.sim_config) : undefined;
}

function checkSimulatorFile(settings: BotSettings, configDir: string): void {
  const file = simulatorFile(settings, configDir);
  if (file === undefined || statSync(file, { throwIfNoEntry: false })?.isFile() === true) return;
  const packaged = packageFile('config', 'sim.yaml');
  throw new InvalidInputError(
    'exchange.credentials.sim_config',
    `no file ${file} (a relative path is read from the config file's folder): name the ` +
      `simulator's YAML${packaged === undefined ? '' : `, such as ${packaged}`}`,
  );
}

/** The file's values with the environment's overrides, and which variable set each path. */
function applyEnv(
  raw: unknown,
  env: NodeJS.ProcessEnv,
): { config: unknown; setBy: ReadonlyMap<string, string> } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidInputError('config', 'must be a YAML mapping at the top level');
  }
  const out = structuredClone(raw) as Record<string, unknown>;
  // REDIS_URL is the common convention; MAKERD_REDIS_URL, listed first, wins over it.
  const setBy = new Map<string, string>();
  for (const [name, path, type] of ENV_OVERRIDES) {
    const value = env[name];
    const key = path.join('.');
    if (value === undefined || value === '' || setBy.has(key)) continue;
    setBy.set(key, name);
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
  return { config: out, setBy };
}
