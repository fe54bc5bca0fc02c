import { resolve } from 'node:path';
import PinoPretty from 'pino-pretty';
import { InvalidInputError, systemClock, type PairInfo } from '../core/index.js';
import { PermissionDeniedError, SpotClient } from '../exchange/index.js';
import { Recorder, type RecordingStats } from '../recording/index.js';
import { loadPairs, MarketFeed, type MarketConfig } from '../market/index.js';
import { createLogger, type Logger } from '../obs/index.js';
import { resolveCredentials } from '../daemon/credentials.js';
import { LiveTerminal } from './live-terminal.js';
import { loadSettings, secondsOption } from './role-command.js';
import { pollPlan } from '../daemon/runner-role.js';
import { untilSignal } from './signals.js';

export interface RecordOptions {
  readonly config?: string;
  readonly out: string;
  readonly seconds?: string;
  readonly logLevel?: string;
  readonly minFree?: string;
}

/** Progress: redrawn this often on a terminal, logged this often otherwise. */
const PROGRESS_EVERY_MS = 5_000;

/**
 * `makerd record`: polls what the runner would (the same budget plan from the same config) and
 * records every answer, sending no order. Stops at SIGINT/SIGTERM or after --seconds with a
 * summary; a disk too full to record ends it with exit 1.
 */
export async function runRecord(opts: RecordOptions): Promise<void> {
  const stopAfterMs =
    opts.seconds === undefined ? undefined : secondsOption('--seconds', opts.seconds);
  const { settings, dir: configDir } = loadSettings(opts.config);
  const out = resolve(opts.out);
  const terminal = new LiveTerminal();
  const log = createLogger({
    level: opts.logLevel ?? settings.log.level,
    base: { role: 'record' },
    ...(terminal.live
      ? {
          destination: PinoPretty({
            destination: terminal.logStream,
            colorize: true,
            translateTime: 'SYS:HH:MM:ss',
            ignore: 'pid,hostname,role',
            singleLine: true,
            sync: true,
          }),
        }
      : {}),
  });
  const clock = systemClock;
  const credentials = resolveCredentials(settings.exchange, process.env, configDir);
  const minFreeBytes =
    opts.minFree === undefined ? undefined : megabytes('--min-free', opts.minFree);
  const recorder = new Recorder({
    dir: out,
    clock,
    log,
    ...(minFreeBytes === undefined ? {} : { minFreeBytes }),
  });
  await recorder.checkDisk().catch(async (err: unknown) => {
    await recorder.close();
    throw err;
  });
  const client = new SpotClient({
    baseUrl: settings.exchange.url,
    credentials,
    tier: settings.exchange.tier,
    restHeadroom: settings.exchange.rest_headroom,
    nonceWindow: settings.exchange.nonce_window,
    clock,
    transport: recorder.transport,
  });
  let feed: MarketFeed | undefined;
  const startedMs = clock.now();
  try {
    const pairs = await loadPairs(
      client,
      settings.pairs.map((p) => p.pair),
    );
    const market = await level3IfAllowed(client, settings.market, pairs, log);
    const plan = pollPlan({ ...settings, market }, client.tier, ids(pairs));
    for (const warning of plan.warnings) log.warn({ component: 'planner' }, warning);
    await recorder.start({ plan, client, pairs });
    const stopped = new Promise<string>((done) => recorder.onStop((err) => done(err.message)));
    feed = new MarketFeed({
      client,
      pairs,
      config: market,
      plan,
      instance: settings.instance,
      clock,
      log: log.child({ component: 'market' }),
    });
    feed.onTradesGap(recorder.tradesGap.bind(recorder));
    feed.start();
    log.info(
      {
        dir: out,
        pairs: pairs.map((p) => p.altname),
        polls: plan.polls.map((p) => ({ id: p.id, interval_ms: p.intervalMs })),
      },
      'recording',
    );
    const progress = setInterval(() => {
      const line = progressLine(recorder.stats(), clock.now() - startedMs);
      if (terminal.live) terminal.setStatus(line);
      else log.info({ ...recorder.stats() }, 'record progress');
    }, PROGRESS_EVERY_MS);
    let deadline: NodeJS.Timeout | undefined;
    const why = await Promise.race([
      untilSignal(),
      stopped,
      ...(stopAfterMs === undefined
        ? []
        : [
            new Promise<string>(
              (done) => (deadline = setTimeout(() => done('time up'), stopAfterMs)),
            ),
          ]),
    ]);
    clearInterval(progress);
    clearTimeout(deadline);
    terminal.clear();
    if (recorder.stopped !== undefined) log.error({ dir: out }, why);
    await feed.stop();
    feed = undefined;
    await recorder.close();
    log.info(
      { dir: out, ...recorder.stats(), seconds: Math.round((clock.now() - startedMs) / 1000) },
      'record summary',
    );
    log.flush();
    if (recorder.stopped !== undefined) throw recorder.stopped;
  } finally {
    await feed?.stop();
    await recorder.close();
    await client.close();
  }
}

function megabytes(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidInputError(flag, `must be a number of MB >= 0, got ${text}`);
  }
  return n * 1024 * 1024;
}

function ids(pairs: readonly PairInfo[]): string[] {
  return pairs.map((p) => p.id);
}

/**
 * The market config, with Level3 off if the key may not query it: one Level3 call says so (a
 * Level3 poll that could never answer would only fill the recording with errors).
 */
async function level3IfAllowed(
  client: SpotClient,
  market: MarketConfig,
  pairs: readonly PairInfo[],
  log: Logger,
): Promise<MarketConfig> {
  const first = pairs[0];
  if (!market.polls.level3.enabled || first === undefined) return market;
  try {
    await client.level3({ pair: first.id, depth: market.polls.level3.depth });
    return market;
  } catch (err) {
    if (!(err instanceof PermissionDeniedError)) throw err;
    log.warn({}, 'record: the key may not query Level3; recording without it');
    return {
      ...market,
      polls: { ...market.polls, level3: { ...market.polls.level3, enabled: false } },
    };
  }
}

/** One line for a terminal: what has been written so far. */
export function progressLine(s: RecordingStats, elapsedMs: number): string {
  const mb = (s.bytes / 1024 / 1024).toFixed(2);
  return `recording ${Math.round(elapsedMs / 1000)} s: ${s.files} files, ${s.rows} rows, ${mb} MB, ${s.gaps} gaps`;
}
