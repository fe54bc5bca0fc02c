import type { Command } from 'commander';
import type { RoleName } from '../daemon/run-roles.js';
import type { AuditCommandOptions } from './audit-command.js';
import type { BacktestCommandOptions } from './backtest-command.js';
import type { DemoOptions } from './demo-command.js';
import type { ImportTardisOptions } from './import-command.js';
import type { ActOptions, FlagCommandOptions } from './operator-commands.js';
import type { RecordOptions } from './record-command.js';
import type { RecordSimulatedOptions } from './record-simulated.js';
import type { RoleCommandOptions } from './role-command.js';
import type { SimOptions } from './sim-command.js';
import type { SweepCommandOptions, SweepWorkerCommandOptions } from './sweep-command.js';

/**
 * Every command, with its description and options. Each action imports the module that runs it
 * only when it runs, so `makerd --help` (or a command's own) loads commander and this file, not
 * the whole daemon (simulator, BullMQ, ioredis, undici): hence only types are imported here.
 */
export function registerCommands(program: Command): void {
  // `makerd backtest worker --config F` is the worker's --config, not backtest's.
  program.enablePositionalOptions();
  program
    .command('sim')
    .description('run the exchange simulator (the paper-trading venue) until interrupted')
    .option('--config <file>', 'simulator YAML (default: the package config/sim.yaml)')
    .option('--host <address>', 'address to bind (default 127.0.0.1)')
    .option('--port <n>', 'port; 0 picks a free one and prints it (default 7878)')
    .option('--seed <n>', 'seed of the background market')
    .option('--no-background', 'no synthetic participants (a still market)')
    .action(async (opts: SimOptions) => (await import('./sim-command.js')).runSim(opts));

  processCommand(
    program,
    'run',
    'run runner, executor and supervisor in one process (the default deployment)',
    ['runner', 'executor', 'supervisor'],
  );
  processCommand(
    program,
    'runner',
    'run the strategy runner: poll market data, quote, publish order intents to Redis',
    ['runner'],
  );
  processCommand(
    program,
    'executor',
    'run the order executor: take pairs (leases), turn queued intents into order-entry calls',
    ['executor'],
  );
  processCommand(
    program,
    'supervisor',
    'run the safety supervisor alone: dead-man heartbeats, SystemStatus watch, halts (halts when stopped)',
    ['supervisor'],
  );

  program
    .command('check-config')
    .description(
      'print the effective configuration (defaults and environment applied), secrets masked',
    )
    .option('--config <file>', CONFIG_HELP)
    .action(async (opts: { config?: string }) =>
      (await import('./check-config-command.js')).checkConfig(opts),
    );

  program
    .command('demo')
    .description(
      'paper-trade against the built-in simulator: starts it, finds Redis (or starts redis-server), runs the bot with readable logs and a live status line',
    )
    .option('--config <file>', CONFIG_HELP)
    .option('--seconds <n>', 'stop (cancelling every order) after this long; default: at Ctrl-C')
    .option('--log-level <level>', LOG_LEVEL_HELP)
    .option('--json', 'JSON log lines, as the daemon writes them, instead of readable ones')
    .option(
      '--status-every <seconds>',
      'without a terminal, print the status line this often (0: never)',
      '10',
    )
    .option(
      '--record <dir>',
      'record the market it trades in this folder (makerd backtest replays it)',
    )
    .action(async (opts: DemoOptions) => (await import('./demo-command.js')).runDemo(opts));

  program
    .command('record')
    .description(
      'record what the runner polls (same budget plan, no orders) to gzip JSON-lines files per pair and hour, for makerd backtest',
    )
    .option('--config <file>', CONFIG_HELP)
    .requiredOption(
      '--out <dir>',
      'folder of the recording (created; new files only, never rewritten)',
    )
    .option('--seconds <n>', 'stop after this long; default: at Ctrl-C')
    .option('--min-free <MB>', 'refuse to start, or stop, below this much free disk (default 100)')
    .option('--log-level <level>', LOG_LEVEL_HELP)
    .option(
      '--simulated',
      "record the simulator's default flow instead (no exchange, no Redis), of the config's pairs",
    )
    .option('--minutes <n>', 'with --simulated: how much of it')
    .option('--seed <n>', "with --simulated: the flow's seed (default 7)")
    .action(async (opts: RecordOptions & RecordSimulatedOptions & { simulated?: boolean }) => {
      if (opts.simulated === true) {
        await (await import('./record-simulated.js')).recordSimulated(opts);
      } else {
        await (await import('./record-command.js')).runRecord(opts);
      }
    });

  const backtest = program
    .command('backtest')
    .enablePositionalOptions()
    .description(
      "replay a recording through the bot of a config file against the simulator's engine; prints a summary and writes report.json (or a sweep of many: --sweep)",
    )
    .option('--data <dir>', 'recording folder (as `makerd record` writes it)')
    .option('--config <file>', CONFIG_HELP)
    .option('--from <iso>', "start of the replay (default: the recording's start)")
    .option('--to <iso>', "end of the replay (default: the recording's end)")
    .option(
      '--out <dir>',
      "where report.html, report.json, fills.jsonl and replay.json go (default ./backtest-<timestamp>/); with --sweep, the sweep's folder (default ./sweep-<timestamp>/)",
    )
    .option(
      '--latency-ms <n>',
      "round trip of each call on the replay clock (default: the recording's median round trip)",
    )
    .option('--maker-fee <percent>', "maker fee instead of the recording's maker ladder")
    .option('--taker-fee <percent>', "taker fee instead of the recording's taker ladder")
    .option('--fee-volume <usd>', "the key's 30-day volume, which places it on the fee ladders")
    .option('--queue-rule <rule>', 'market.queue.rule for this run: linear, log, power or power:N')
    .option(
      '--max-data-problems <n>',
      'exit 1 (after writing the report) when the data has more problems than this (default 0)',
    )
    .option('--force', 'replace the report of an earlier run in --out')
    .option(
      '--stores <kind>',
      "where the bot's state lives: memory (the default, no Redis) or redis (the config's, as live)",
    )
    .option('--sweep <file>', 'run the grid of a sweep file (docs/backtest.md#sweeps)')
    .option('--jobs <n>', 'with --sweep: local worker processes (default: the cores; 0: none)')
    .option(
      '--split <fraction>',
      'with --sweep: rank on this share of the recording, run the best on the rest',
    )
    .option('--top <n>', 'with --split: how many of the best settings run on the rest (default 5)')
    .option('--rank-by <figure>', 'with --sweep: pnl (total PnL, the default) or pnl_bps')
    .option('--log-level <level>', LOG_LEVEL_HELP)
    .action(async (opts: BacktestCommandOptions & Partial<SweepCommandOptions>) =>
      (await import('./sweep-command.js')).runBacktestOrSweep(opts),
    );
  backtest
    .command('worker')
    .description(
      "take jobs of the sweeps on the config's Redis (of one with --sweep-id), each run as makerd backtest; the recording and config at the same paths as the sweep's",
    )
    .option('--config <file>', `${CONFIG_HELP}: its redis.url and redis.prefix find the sweeps`)
    .option(
      '--sweep-id <id>',
      'work on this sweep only and stop when it ends (default: every sweep, until Ctrl-C)',
    )
    .option('--log-level <level>', LOG_LEVEL_HELP)
    .action(async (opts: SweepWorkerCommandOptions) =>
      (await import('./sweep-command.js')).runSweepWorkerCommand(opts),
    );

  program
    .command('import')
    .description('turn market data from elsewhere into a recording makerd backtest replays')
    .command('tardis')
    .description(
      'Tardis.dev CSV files (incremental_book_L2 or book_snapshot_25, and trades; gzip or plain) of one symbol as a recording of a pair: every book change and every trade',
    )
    .requiredOption('--book <file>', 'incremental_book_L2 or book_snapshot_25 CSV file')
    .requiredOption('--trades <file>', 'trades CSV file of the same symbol')
    .requiredOption('--pair <pair>', 'the pair the recording holds it as (e.g. XBTUSD)')
    .requiredOption('--out <dir>', 'folder of the recording (new or empty)')
    .option(
      '--asset-pairs <file>',
      "the pair's rules: an AssetPairs answer (JSON); default makerd's own for the pairs it knows",
    )
    .option(
      '--depth <levels>',
      'levels a side the recording holds, the best (default 100, at most 1000)',
    )
    .option('--force', 'replace a recording already in --out')
    .action(async (opts: ImportTardisOptions) =>
      (await import('./import-command.js')).runImportTardis(opts),
    );

  program
    .command('halt')
    .description('halt quoting (every role obeys the flag) and cancel every order of the key')
    .option('--config <file>', ACT_CONFIG_HELP)
    .option('--http <url>', ACT_HTTP_HELP)
    .option('--reason <text>', 'why, shown in status, logs and metrics', 'operator halt')
    .action(async (opts: ActOptions & { reason: string }) =>
      (await import('./operator-commands.js')).runHalt(opts),
    );

  program
    .command('resume')
    .description('clear the halt flag: the runner quotes and the executor sends again')
    .option('--config <file>', ACT_CONFIG_HELP)
    .option('--http <url>', ACT_HTTP_HELP)
    .action(async (opts: ActOptions) => (await import('./operator-commands.js')).runResume(opts));

  program
    .command('pull <pair>')
    .description("stop quoting one pair and cancel our orders in it, until 'makerd restore'")
    .option('--config <file>', ACT_CONFIG_HELP)
    .option('--http <url>', ACT_HTTP_HELP)
    .option('--reason <text>', 'why, shown in status and the console', 'operator pull')
    .action(async (pair: string, opts: ActOptions & { reason: string }) =>
      (await import('./operator-commands.js')).runPull(pair, opts),
    );

  program
    .command('restore <pair>')
    .description('let the runner quote a pulled pair again')
    .option('--config <file>', ACT_CONFIG_HELP)
    .option('--http <url>', ACT_HTTP_HELP)
    .action(async (pair: string, opts: ActOptions) =>
      (await import('./operator-commands.js')).runRestore(pair, opts),
    );

  program
    .command('status')
    .description(
      'show the halt flag, roles, supervisor, and per pair orders, inventory, PnL, ratecount',
    )
    .option('--config <file>', CONFIG_HELP)
    .option(
      '--http <url>',
      "ask a running process's HTTP endpoint instead (e.g. the demo's http://127.0.0.1:9464)",
    )
    .option('--json', 'one JSON object instead of lines for people')
    .action(async (opts: FlagCommandOptions & { json?: boolean; http?: string }) =>
      (await import('./status-command.js')).runStatus(opts),
    );

  program
    .command('audit')
    .description(
      'list the audit trail: every halt, resume, pull and restore, who, from where, why, outcome',
    )
    .option('--config <file>', `${CONFIG_HELP}: its redis.url and redis.prefix find the trail`)
    .option('--limit <n>', 'how many of the newest entries (newest last)', '50')
    .option('--json', 'one JSON object per entry instead of lines for people')
    .action(async (opts: AuditCommandOptions) =>
      (await import('./audit-command.js')).runAudit(opts),
    );

  program
    .command('time')
    .description("print the exchange's server time (public, no key needed)")
    .requiredOption(
      '--base-url <url>',
      'API host, e.g. http://127.0.0.1:7878',
      process.env.MAKERD_BASE_URL,
    )
    .action(async (opts: { baseUrl: string }) =>
      (await import('./exchange-info-command.js')).printExchangeInfo(opts.baseUrl, 'time'),
    );

  program
    .command('system-status')
    .description("print the exchange's SystemStatus (public, no key needed)")
    .requiredOption('--base-url <url>', 'API host', process.env.MAKERD_BASE_URL)
    .action(async (opts: { baseUrl: string }) =>
      (await import('./exchange-info-command.js')).printExchangeInfo(opts.baseUrl, 'systemStatus'),
    );
}

const CONFIG_HELP = 'daemon YAML (default: the package config/paper.yaml)';
/** The acting commands have no default: they must not fall on a deployment nobody named. */
const ACT_CONFIG_HELP = 'daemon YAML: act through its Redis (this or --http is required)';
const ACT_HTTP_HELP =
  "act through a running process's HTTP endpoint (e.g. the demo's http://127.0.0.1:9464); the control token from MAKERD_HTTP_TOKEN or MAKERD_HTTP_TOKEN_FILE";
const LOG_LEVEL_HELP = 'trace, debug, info, warn or error';

/** `makerd run|runner|executor|supervisor`: the roles named, in this process. */
function processCommand(
  program: Command,
  name: string,
  description: string,
  roles: readonly RoleName[],
): void {
  program
    .command(name)
    .description(description)
    .option('--config <file>', CONFIG_HELP)
    .option('--log-level <level>', LOG_LEVEL_HELP)
    .option('--status-every <seconds>', 'log a status line this often (0: never)', '30')
    .action(async (opts: RoleCommandOptions) =>
      (await import('./process-command.js')).runProcessCommand(name, roles, opts),
    );
}
