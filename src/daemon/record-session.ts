import type { Clock, PairInfo } from '../core/index.js';
import { PermissionDeniedError, SpotClient } from '../exchange/index.js';
import { loadPairs, MarketFeed, type BudgetPlan, type MarketConfig } from '../market/index.js';
import type { Logger } from '../obs/index.js';
import { Recorder, type RecordingStats } from '../recording/index.js';
import type { BotSettings } from './bot-config.js';
import { resolveCredentials } from './credentials.js';
import { logPlanFit, pollPlan } from './runner-role.js';

export interface RecordSessionOptions {
  readonly settings: BotSettings;
  /** Relative paths of the config (the simulator's YAML) are read from here. */
  readonly configDir: string;
  /** The recording's folder. */
  readonly out: string;
  readonly minFreeBytes?: number;
  readonly clock: Clock;
  readonly log: Logger;
}

/** A recording under way: what `makerd record` polls (the runner's plan), no order sent. */
export interface RecordSession {
  readonly pairs: readonly PairInfo[];
  readonly plan: BudgetPlan;
  stats(): RecordingStats;
  /** Settles with the reason when the recorder stops by itself (a disk too full). */
  readonly stopped: Promise<string>;
  /** Set once the recorder stopped by itself. */
  stoppedBy(): Error | undefined;
  /** Stops polling, then closes the files and the client; safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts recording what the runner of `settings` would poll (the same budget plan), with the
 * key's client writing every answer through the recorder. Anything wrong at start (a full disk,
 * a pair the exchange does not list) fails here with what was opened closed.
 */
export async function startRecordSession(o: RecordSessionOptions): Promise<RecordSession> {
  const { settings, clock, log } = o;
  const credentials = resolveCredentials(settings.exchange, process.env, o.configDir);
  const recorder = new Recorder({
    dir: o.out,
    clock,
    log,
    ...(o.minFreeBytes === undefined ? {} : { minFreeBytes: o.minFreeBytes }),
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
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      try {
        await feed?.stop();
        await recorder.close();
      } finally {
        await client.close();
      }
    })());
  try {
    const pairs = await loadPairs(
      client,
      settings.pairs.map((p) => p.pair),
    );
    const market = await level3IfAllowed(client, settings.market, pairs, log);
    const plan = pollPlan(
      { ...settings, market },
      client.tier,
      pairs.map((p) => p.id),
    );
    logPlanFit(plan, log);
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
    return {
      pairs,
      plan,
      stats: () => recorder.stats(),
      stopped,
      stoppedBy: () => recorder.stopped,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
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
