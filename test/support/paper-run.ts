/**
 * Black-box runs as an operator makes them: `makerd sim` in a process of its own and `makerd run`
 * processes trading its paper key through a config file. For the fault tests of issue #32 (dropped
 * answers, kill -9 and restart, Redis lost).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { freshPrefix, REDIS_URL } from './redis.js';
import { makerd, stop } from './spawn.js';
import type { SimStateView } from './until.js';

const SIM_YAML = fileURLToPath(new URL('../../config/sim.yaml', import.meta.url));

export interface SimOrderRow {
  readonly txid: string;
  readonly pair: string;
  readonly side: 'buy' | 'sell';
  readonly price: string;
  readonly status: string;
  /** Ours: (instance, slot, generation), see decodeUserref. */
  readonly userref?: number | null;
}

export type Bot = ReturnType<typeof makerd>;

export interface PaperRun {
  readonly simUrl: string;
  readonly prefix: string;
  /** The run's own simulator key: its ratecount (kept in Redis by API key) is shared with no test. */
  readonly apiKey: string;
  /** Its secret, for a test that reads the key's own history (TradesHistory). */
  readonly apiSecret: string;
  /** The config file `start()` runs. */
  readonly config: string;
  /** Starts `makerd run`; resolves with the process and its HTTP URL once it logs `makerd running`. */
  start(env?: NodeJS.ProcessEnv): Promise<{ bot: Bot; http: string }>;
  admin(path: string, body: unknown): Promise<unknown>;
  state(): Promise<SimStateView>;
  /** The paper key's open orders (and with `closed`, its closed ones). */
  orders(): Promise<SimOrderRow[]>;
  closedOrders(): Promise<SimOrderRow[]>;
  close(): Promise<void>;
}

/**
 * Starts the simulator and writes a config for two pairs quoted by the spread strategy (two
 * levels a side, 10 bps from the mid, the fee floor off: a session of a minute or two needs
 * dozens of fills to be measured) with a key of its own on `tier`; `overrides` replaces
 * top-level sections.
 */
export async function startPaperRun(
  seed: number,
  overrides: Record<string, unknown> = {},
  tier: 'starter' | 'intermediate' | 'pro' = 'starter',
): Promise<PaperRun> {
  const sim = makerd(['sim', '--port', '0', '--config', SIM_YAML, '--seed', String(seed)]);
  const simUrl = String((await sim.waitFor('makerd sim listening')).url);
  const prefix = freshPrefix();
  const apiKey = `run-${prefix}`;
  const apiSecret = randomBytes(32).toString('base64');
  const made = await fetch(`${simUrl}/_sim/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      key: apiKey,
      secret: apiSecret,
      tier,
      balances: { ZUSD: '100000', XXBT: '2', XETH: '30' },
      nonce_window: 5000,
    }),
  });
  if (!made.ok) throw new Error(`sim account: ${made.status} ${await made.text()}`);
  const config = join(mkdtempSync(join(tmpdir(), 'makerd-paper-run-')), 'makerd.yaml');
  const spread = (size: string) => ({
    name: 'spread',
    options: {
      levels: 2,
      min_spread_bps: 20,
      level_spacing_bps: 10,
      order_size: size,
      fee_floor: false,
    },
  });
  writeFileSync(
    config,
    stringify({
      exchange: {
        url: simUrl,
        tier,
        nonce_window: 5000,
        credentials: { from: 'env' },
      },
      redis: { url: REDIS_URL, prefix },
      pairs: [
        { pair: 'XBTUSD', strategy: spread('0.01') },
        { pair: 'ETHUSD', strategy: spread('0.2') },
      ],
      market: {
        polls: {
          depth: { interval_ms: 1000 },
          grouped_book: { interval_ms: 10_000 },
          trades: { interval_ms: 10_000 },
          level3: { enabled: false },
          open_orders: { interval_ms: 30_000 },
          balance: { interval_ms: 120_000 },
          system_status: { interval_ms: 1000 },
        },
      },
      http: { port: 0 },
      supervisor: {
        heartbeat: { timeout_s: 60, interval_s: 20 },
        status: { interval_ms: 1000 },
        resume: 'operator',
      },
      ...overrides,
    }),
  );
  const get = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${simUrl}${path}`)).json()) as T;
  const bots: Bot[] = [];
  return {
    simUrl,
    prefix,
    apiKey,
    apiSecret,
    config,
    async start(env = {}) {
      const bot = makerd(['run', '--config', config, '--status-every', '0'], {
        MAKERD_API_KEY: apiKey,
        MAKERD_API_SECRET: apiSecret,
        ...env,
      });
      bots.push(bot);
      const running = await bot.waitFor('makerd running', 30_000);
      return { bot, http: String(running.http) };
    },
    async admin(path, body) {
      const res = await fetch(`${simUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return res.json();
    },
    state: () => get<SimStateView>('/_sim/state'),
    orders: async () =>
      (await get<{ open_orders: SimOrderRow[] }>(`/_sim/orders?key=${apiKey}`)).open_orders,
    closedOrders: async () =>
      (await get<{ closed_orders: SimOrderRow[] }>(`/_sim/orders?key=${apiKey}&closed=1`))
        .closed_orders,
    async close() {
      for (const bot of bots) await stop(bot.child);
      await stop(sim.child);
    },
  };
}
