/**
 * config/paper.yaml as the benchmarks that start `makerd run` use it: cut or extended to N pairs,
 * pointed at a simulator and a Redis, on a prefix and a free HTTP port of their own.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort } from '../../src/core/free-port.js';
import { ROOT } from './processes.js';

export const SIM_CONFIG = join(ROOT, 'config/sim.yaml');
/**
 * A third pair beyond config/paper.yaml's two, on a market the simulator lists by default (its
 * quote asset is XBT, so a 3-pair run has no max_daily_loss).
 */
const THIRD_PAIR = {
  pair: 'ETHXBT',
  strategy: { name: 'spread', options: { min_spread_bps: 20, levels: 2, order_size: '0.2' } },
};
const READY_TIMEOUT_MS = 60_000;

export interface PaperConfig {
  readonly file: string;
  readonly metricsUrl: string;
}

/** config/paper.yaml for `pairs` pairs against `simUrl`, written to `dir`/makerd.yaml. */
export async function writePaperConfig(options: {
  readonly dir: string;
  readonly simUrl: string;
  readonly redisUrl: string;
  readonly pairs: number;
  readonly prefix: string;
  /** The simulator's config, for the paper account's credentials (default config/sim.yaml). */
  readonly simConfig?: string;
  /** Stretches every market poll of the runner to at least this many ms. */
  readonly pollEveryMs?: number;
}): Promise<PaperConfig> {
  const config = parse(await readFile(join(ROOT, 'config/paper.yaml'), 'utf8')) as {
    exchange: { url: string; credentials: { sim_config: string } };
    market: { polls: Record<string, { interval_ms?: number }> };
    redis: { url: string; prefix: string };
    pairs: unknown[];
    supervisor: { risk: { max_daily_loss?: unknown } };
    http?: unknown;
  };
  config.exchange.url = options.simUrl;
  config.exchange.credentials.sim_config = options.simConfig ?? SIM_CONFIG;
  config.redis = { url: options.redisUrl, prefix: options.prefix };
  config.pairs = [...config.pairs, THIRD_PAIR].slice(0, options.pairs);
  // max_daily_loss sums the pairs' PnL, which needs one quote asset: ETHXBT is quoted in XBT.
  if (options.pairs > 2) delete config.supervisor.risk.max_daily_loss;
  const every = options.pollEveryMs;
  if (every !== undefined) {
    for (const poll of Object.values(config.market.polls)) {
      if (poll.interval_ms !== undefined) poll.interval_ms = Math.max(poll.interval_ms, every);
    }
  }
  const port = await freePort();
  config.http = { host: '127.0.0.1', port };
  const file = join(options.dir, 'makerd.yaml');
  await writeFile(file, stringify(config));
  return { file, metricsUrl: `http://127.0.0.1:${port}/metrics` };
}

/** Resolves once makerd answers /metrics; rejects if it exits first or takes over a minute. */
export async function untilReady(metricsUrl: string, exited: Promise<unknown>): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && !gone) {
    try {
      if ((await fetch(metricsUrl)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(gone ? 'makerd exited while starting' : 'makerd /metrics did not answer in 60 s');
}
