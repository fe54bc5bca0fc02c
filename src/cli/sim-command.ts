import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidInputError } from '../core/index.js';
import { loadSimConfig, parseSimConfig, startSimulator } from '../sim/index.js';
import { packageFile } from '../daemon/package-file.js';

export interface SimOptions {
  config?: string;
  host?: string;
  port?: string;
  seed?: string;
  background: boolean;
}

/** `makerd sim`: runs the simulator until a signal. */
export async function runSim(opts: SimOptions): Promise<void> {
  const file = opts.config ?? packageFile('config', 'sim.yaml');
  const base =
    file !== undefined && existsSync(file) ? loadSimConfig(resolve(file)) : parseSimConfig({});
  const background = {
    ...base.background,
    enabled: opts.background && base.background.enabled,
  };
  if (opts.seed !== undefined) background.seed = integer('--seed', opts.seed);
  const config = { ...base, background };
  const sim = await startSimulator({
    config,
    ...(opts.port === undefined ? {} : { port: integer('--port', opts.port) }),
    ...(opts.host === undefined ? {} : { host: opts.host }),
  });
  const keys = sim.ctx.accounts
    .all()
    .filter((a) => a.kind === 'user')
    .map((a) => a.key);
  process.stdout.write(
    `${JSON.stringify({
      msg: 'makerd sim listening',
      url: sim.url,
      port: sim.port,
      pairs: sim.ctx.markets.pairs.map((p) => p.altname),
      keys,
      background: config.background.enabled,
      admin: `${sim.url}/_sim/state`,
    })}\n`,
  );
  await new Promise<void>((done) => {
    let closing = false;
    const close = (): void => {
      if (closing) return;
      closing = true;
      void sim.close().then(done);
    };
    // A Ctrl-C in a terminal reaches the bot and the simulator at once: the simulator answers
    // for a moment longer, so the bot's shutdown can still cancel its orders and disarm its
    // timer, as a real exchange would. A second signal closes at once.
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once('SIGINT', close);
      process.once('SIGTERM', close);
      setTimeout(close, SHUTDOWN_GRACE_MS);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** How long the simulator keeps answering after the first signal. */
const SHUTDOWN_GRACE_MS = 1_000;

function integer(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidInputError(flag, `must be a whole number, got ${JSON.stringify(text)}`);
  return n;
}
