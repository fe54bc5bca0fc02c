import type { Command } from 'commander';
import { SpotClient } from '../exchange/index.js';
import { registerCheckConfigCommand } from './check-config-command.js';
import { registerDemoCommand } from './demo-command.js';
import { registerOperatorCommands } from './operator-commands.js';
import { registerProcessCommand } from './process-command.js';
import { registerSimCommand } from './sim-command.js';

export function registerCommands(program: Command): void {
  registerSimCommand(program);
  registerProcessCommand(
    program,
    'run',
    'run runner, executor and supervisor in one process (the default deployment)',
    ['runner', 'executor', 'supervisor'],
  );
  registerProcessCommand(
    program,
    'runner',
    'run the strategy runner: poll market data, quote, publish order intents to Redis',
    ['runner'],
  );
  registerProcessCommand(
    program,
    'executor',
    'run the order executor: take pairs (leases), turn queued intents into order-entry calls',
    ['executor'],
  );
  registerProcessCommand(
    program,
    'supervisor',
    'run the safety supervisor alone: dead-man heartbeats, SystemStatus watch, halts (halts when stopped)',
    ['supervisor'],
  );
  registerCheckConfigCommand(program);
  registerDemoCommand(program);
  registerOperatorCommands(program);

  program
    .command('time')
    .description("print the exchange's server time (public, no key needed)")
    .requiredOption(
      '--base-url <url>',
      'API host, e.g. http://127.0.0.1:7878',
      process.env.MAKERD_BASE_URL,
    )
    .action(async (opts: { baseUrl: string }) => {
      const client = new SpotClient({ baseUrl: opts.baseUrl });
      try {
        const { result, traceId } = await client.time();
        process.stdout.write(`${JSON.stringify({ ...result, traceId })}\n`);
      } finally {
        await client.close();
      }
    });

  program
    .command('system-status')
    .description("print the exchange's SystemStatus (public, no key needed)")
    .requiredOption('--base-url <url>', 'API host', process.env.MAKERD_BASE_URL)
    .action(async (opts: { baseUrl: string }) => {
      const client = new SpotClient({ baseUrl: opts.baseUrl });
      try {
        const { result, traceId } = await client.systemStatus();
        process.stdout.write(`${JSON.stringify({ ...result, traceId })}\n`);
      } finally {
        await client.close();
      }
    });
}
