import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { InvalidInputError } from '../core/index.js';
import { loadSimConfig, parseSimConfig, startSimulator } from '../sim/index.js';

/** config/sim.yaml of the package, found upward from this file (sources or dist/). */
export function packageFile(...parts: string[]): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, ...parts);
    dir = dirname(dir);
  }
  return undefined;
}

interface SimOptions {
  config?: string;
  host?: string;
  port?: string;
  seed?: string;
  background: boolean;
}

export function registerSimCommand(program: Command): void {
  program
    .command('sim')
    .description('run the exchange simulator (the paper-trading venue) until interrupted')
    .option('--config <file>', 'simulator YAML (default: the package config/sim.yaml)')
    .option('--host <address>', 'address to bind (default 127.0.0.1)')
    .option('--port <n>', 'port; 0 picks a free one and prints it (default 7878)')
    .option('--seed <n>', 'seed of the background market')
    .option('--no-background', 'no synthetic participants (a still market)')
    .action(async (opts: SimOptions) => {
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
