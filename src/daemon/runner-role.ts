import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { BEAT_EVERY_MS, BEAT_TTL_MS, type IntentBus } from '../bus/index.js';
import { dec, errorMessage, every, parseSlotKey, parseWithSchema } from '../core/index.js';
import type { OwnOrder } from '../core/market.js';
import { penalty, type SpotClient, type Tier } from '../exchange/index.js';
import {
  TERMINAL_STATES,
  isOurResting,
  type TrackedOrder,
  type RedisOrderTracker,
} from '../orders/index.js';
import {
  MarketFeed,
  MarketMetrics,
  NO_ADVERSE_SELECTION,
  type OwnResting,
  executorSyncPerSec,
  planBudget,
  wishesFor,
  type BudgetPlan,
} from '../market/index.js';
import type { Logger } from '../obs/index.js';
import { RunnerMetrics } from '../runner/metrics.js';
import { Runner, type PairStrategy } from '../runner/runner.js';
import { instantiateStrategy, loadStrategy } from '../runner/strategy-loader.js';
import { pairLimits, quotesBreach } from '../safety/index.js';
import { AuditTrail } from './audit-trail.js';
import type { BotSettings } from './bot-config.js';
import { appendAudit, ownEntry } from './control-actions.js';
import { ConsoleReporter } from './console-report.js';
import { LivePnl, type ReplayPnlHooks } from './pnl-live.js';
import { PnlMetrics } from './pnl-metrics.js';
import { RedisEvents } from './redis-events.js';
import {
  isLive,
  roleBaseFor,
  type LiveRoleBase,
  type RoleBase,
  type RoleBaseParts,
} from './role-base.js';
import { TrackerFills } from './tracker-fills.js';

/**
 * Live, the fills and the PnL report are read when the tracker's message says a pair changed;
 * this is their fallback poll (a lost message, a subscription down), well within the report's ttl.
 */
const SAFETY_EVERY_MS = 5_000;

export interface RunnerRoleParts extends RoleBaseParts {
  readonly settings: BotSettings;
  readonly log: Logger;
  readonly registry: Registry;
  /** Folder of the built-in strategies (the package's strategies/). */
  readonly strategiesDir: string;
  /** A backtest's: the PnL hooks its report needs. */
  readonly replayPnl?: ReplayPnlHooks;
}

export interface RunnerRole {
  readonly plan: BudgetPlan;
  readonly runner: Runner;
  readonly feed: MarketFeed;
  readonly bus: IntentBus;
  readonly client: SpotClient;
  readonly pnl: LivePnl;
  /** Hands on the fills the executor recorded since the last check (a replay's last one). */
  checkFills(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Loads each pair's strategy and checks its options, before anything connects: a bad option is
 * refused before the executor takes a lease or the exchange sees a private call. The role checks
 * again with the pair (init, start) when it starts.
 */
export async function checkStrategies(settings: BotSettings, strategiesDir: string): Promise<void> {
  for (const [i, entry] of settings.pairs.entries()) {
    const plugin = await loadStrategy(entry.strategy.name, {
      strategiesDir,
      field: `pairs[${i}].strategy.name`,
    });
    parseWithSchema(plugin.options, entry.strategy.options ?? {}, `pairs[${i}].strategy.options`);
  }
}

/** The runner's polls for these pairs, planned within the key's tier. */
export function pollPlan(
  settings: BotSettings,
  tier: Tier,
  pairIds: readonly string[],
): BudgetPlan {
  return planBudget({
    tier,
    wishes: wishesFor(settings.market, pairIds),
    utilization: settings.market.utilization,
    // The operator's reserve, plus the executor's periodic syncs, which the same key pays for.
    privateReservePerSec:
      settings.market.private_reserve_per_sec +
      executorSyncPerSec(pairIds.length, settings.executor.reconcile_interval_ms),
    // The supervisor's CancelAllOrdersAfter refresh (1 REST point each) is reserved first.
    heartbeat: {
      intervalMs: settings.supervisor.heartbeat.interval_s * 1000,
      cost: 1,
    },
    publicCallsPerSec: settings.market.public_budget.calls_per_sec,
  });
}

/**
 * What the plan stretched: a warning when it had to stretch intervals the operator set (they
 * asked for more than the key can pay), an info line when only defaults were stretched.
 */
export function logPlanFit(plan: BudgetPlan, log: Logger): void {
  for (const warning of plan.warnings) log.warn({ component: 'planner' }, warning);
  for (const note of plan.notes) log.info({ component: 'planner' }, note);
}

/**
 * Records what the runner polls (`record:`). A disk too full to record, at start or later, is
 * logged and recording stops; trading goes on.
 */
async function startRecording(base: RoleBase, plan: BudgetPlan, log: Logger): Promise<void> {
  const recorder = base.recorder;
  if (recorder === undefined) return;
  const rlog = log.child({ component: 'record' });
  recorder.onStop((err) => rlog.error({ dir: recorder.dir, ...recorder.stats() }, err.message));
  try {
    await recorder.start({ plan, client: base.client, pairs: base.pairs });
    rlog.info({ dir: recorder.dir }, 'recording the market');
  } catch (err) {
    rlog.error({ dir: recorder.dir }, errorMessage(err));
  }
}

/**
 * Wires the runner role: client, pairs, budget plan, strategies, feed, bus. Everything that can be
 * wrong with the configuration (a pair, a plugin, its options, a budget that cannot work) fails
 * here, before the first poll.
 */
export async function startRunnerRole(parts: RunnerRoleParts): Promise<RunnerRole> {
  const { settings, log, registry } = parts;
  const { base, release } = await roleBaseFor(settings, parts);
  const { clock, client, pairs, flags, bus } = base;
  try {
    const plan = pollPlan(
      settings,
      client.tier,
      pairs.map((p) => p.id),
    );
    logPlanFit(plan, log);
    await startRecording(base, plan, log);
    log.info(
      {
        component: 'planner',
        polls: plan.polls.map((p) => ({ id: p.id, interval_ms: p.intervalMs })),
      },
      'poll plan',
    );

    const strategies: PairStrategy[] = [];
    for (const [i, entry] of settings.pairs.entries()) {
      const pair = pairs[i];
      if (!pair) continue;
      const plugin = await loadStrategy(entry.strategy.name, {
        strategiesDir: parts.strategiesDir,
        field: `pairs[${i}].strategy.name`,
      });
      const made = instantiateStrategy(plugin, entry.strategy.options, {
        pair,
        log: log.child({ component: 'strategy', strategy: plugin.name, pair: pair.altname }),
        field: `pairs[${i}].strategy.options`,
      });
      strategies.push({ pair, plugin: made.plugin, context: made.context, state: made.state });
    }

    // Our orders as the executor's tracker held them at LivePnl's last read (after each change).
    const executorOrders = new Map<string, readonly TrackedOrder[]>();
    // The PnL attribution is built after the feed; the feed asks it at each snapshot.
    const measured: { pnl?: LivePnl } = {};
    const feed = new MarketFeed({
      client,
      pairs,
      config: settings.market,
      plan,
      instance: settings.instance,
      clock,
      metrics: new MarketMetrics(registry),
      haltSource: () => flags.current(),
      ownResting: (pairId) => restingOf(executorOrders.get(pairId)),
      adverseSelection: (pairId) => measured.pnl?.adverseSelection(pairId) ?? NO_ADVERSE_SELECTION,
      log: log.child({ component: 'market' }),
    });
    if (base.recorder !== undefined) feed.onTradesGap(base.recorder.tradesGap.bind(base.recorder));
    // Each OpenOrders answer goes to the executor, whose tracker derives our fills from it; the
    // strategies get their fills back from the tracker.
    const pairIds = pairs.map((p) => p.id);
    feed.onOrdersView((view) => {
      bus
        .writeOrdersView(view, pairIds)
        .catch((err: unknown) =>
          log.warn({ err: errorMessage(err) }, 'handing the orders view to the executor failed'),
        );
    });
    const { tracker } = base;
    const everyMs = SAFETY_EVERY_MS;
    const fills = new TrackerFills({
      tracker,
      pairs,
      clock,
      everyMs,
      log: log.child({ component: 'runner' }),
    });
    // Into the snapshots' inventory before the runner's own listener (runner.start) ticks the pair.
    fills.onFill((fill) => feed.fill(fill));
    const risk = settings.supervisor.risk;
    const { pulled } = base;
    // A quote the risk limits refuse halts everything, on the audit trail (a replay has none).
    const trail =
      base.redis === undefined ? undefined : new AuditTrail(base.redis, settings.redis.prefix);
    const riskHalt = async (reason: string): Promise<void> => {
      try {
        const changed = await flags.halt(reason, 'runner', Math.floor(clock.now()));
        const before = changed ? { halted: false } : flags.current();
        if (trail === undefined) return;
        const entry = ownEntry('runner', clock.now(), { action: 'halt', reason, changed, before });
        await appendAudit({ trail, log }, entry);
      } catch (err) {
        log.error({ err: errorMessage(err) }, 'setting the halt flag failed');
      }
    };
    const runner = new Runner({
      feed,
      fills,
      sink: bus,
      strategies,
      config: settings.runner,
      instance: settings.instance,
      clock,
      metrics: new RunnerMetrics(registry),
      log,
      // The risk limits' order checks, before anything is sent; a refusal halts everything.
      quoteGate: (pair, quotes, snapshot) =>
        snapshot.mid === undefined
          ? undefined
          : quotesBreach(
              quotes,
              snapshot.mid,
              pairLimits(risk, { pair: pair.id, altname: pair.altname }),
              risk.quote_band_bps,
            )?.reason,
      editPoints: (ageMs) => penalty('EditOrder', ageMs),
      pulled: (pair) =>
        pulled.has(pair.altname) ? ownOrders(executorOrders.get(pair.id)) : undefined,
      onRefused: (pair, reason) => void riskHalt(`risk: ${pair.altname}: ${reason}`),
    });
    // Liveness for the supervisor, beaten as ticks complete: a runner whose market data stopped or
    // whose loop hangs stops proving it is alive, and the dead-man heartbeats stop with it.
    let beatAtMs = -Infinity;
    runner.onTick(() => {
      const now = Math.floor(clock.now());
      if (now - beatAtMs < BEAT_EVERY_MS) return;
      beatAtMs = now;
      void flags.beat('runner', now, BEAT_TTL_MS).catch(() => undefined);
    });
    await fills.start();
    const pnl = new LivePnl({
      pairs,
      openingBase: (pairId) => fills.openingBase(pairId),
      orders: tracker,
      ratecount: base.ratecount,
      flags,
      metrics: new PnlMetrics(registry),
      clock,
      everyMs,
      reportTtlMs: BEAT_TTL_MS,
      log: log.child({ component: 'pnl' }),
      ...(parts.replayPnl === undefined ? {} : { replay: parts.replayPnl }),
    });
    measured.pnl = pnl;
    if (base.recorder !== undefined) pnl.onOrders(base.recorder.ownOrders.bind(base.recorder));
    pnl.onOrders((pair, live) => executorOrders.set(pair.id, live));
    fills.onFill((fill) => pnl.fill(fill));
    runner.onTick((report) => pnl.tick(report));
    // Live, another process's writes come as pub/sub messages; in a replay (one process, no
    // subscription: a message would come on the wall clock) the tracker tells its own writes.
    const events = isLive(base)
      ? followTracker(base.redis, settings, { tracker: base.tracker, fills, pnl, log })
      : undefined;
    const unlisten =
      events === undefined
        ? tracker.onChange((pairId) => void fills.changed(pairId).then(() => pnl.changed(pairId)))
        : undefined;
    pnl.start();
    // The operator console's view of the runner, and the pairs an operator pulled; a replay
    // has no operator.
    const consoleSide =
      !isLive(base) || events === undefined
        ? undefined
        : startConsoleSide(base, settings, {
            runner,
            pnl,
            events,
            log,
          });
    await events?.start();
    runner.start();
    feed.start();
    return {
      plan,
      runner,
      feed,
      bus,
      client,
      pnl,
      checkFills: () => fills.check(),
      stop: async () => {
        unlisten?.();
        await events?.close();
        await consoleSide?.stop();
        await pnl.stop();
        await feed.stop();
        await fills.stop();
        await runner.stop();
        await release();
      },
    };
  } catch (err) {
    await release();
    throw err;
  }
}

/**
 * The runner's subscriber: a tracker's message names the pair it wrote, whose fills and PnL are
 * read at once (its fills reach strategies, PnL and metrics without waiting for a poll); once
 * subscribed, and after each reconnect, every pair is read, since messages sent meanwhile are
 * lost. Started by the caller, once every channel has its listener.
 */
function followTracker(
  redis: Redis,
  settings: BotSettings,
  parts: { tracker: RedisOrderTracker; fills: TrackerFills; pnl: LivePnl; log: Logger },
): RedisEvents {
  const { fills, pnl, log } = parts;
  const events = new RedisEvents(redis, `${settings.redis.prefix}:runner-events`);
  // The fills first, so that the report published after the change counts them.
  events.on(parts.tracker.changesChannel, (pairId) => {
    void fills.changed(pairId).then(() => pnl.changed(pairId));
  });
  events.onResync(() => {
    fills
      .check()
      .then(() => pnl.refresh())
      .catch((err: unknown) => log.warn({ err: errorMessage(err) }, 'reading after a reconnect'));
  });
  return events;
}

/**
 * The runner's part in the operator console: its report each second (book, our orders, data
 * ages, the hour's chart points), and the pairs an operator pulled, read on the pull's message
 * (and every SAFETY_EVERY_MS as the fallback).
 */
function startConsoleSide(
  base: LiveRoleBase,
  settings: BotSettings,
  parts: { runner: Runner; pnl: LivePnl; events: RedisEvents; log: Logger },
): { stop(): Promise<void> } {
  const { pulled } = base;
  const log = parts.log.child({ component: 'console' });
  const reporter = new ConsoleReporter({
    pairs: base.pairs,
    flags: base.flags,
    redis: base.redis,
    prefix: settings.redis.prefix,
    clock: base.clock,
    reportTtlMs: BEAT_TTL_MS,
    log,
  });
  parts.runner.onTick((report) => reporter.tick(report));
  parts.pnl.onOrders((pair, live) => reporter.orders(pair, live));
  reporter.start();
  const failed = (err: unknown): void =>
    log.warn({ err: errorMessage(err) }, 'reading the pulled pairs failed');
  const read = (): void => void pulled.read().catch(failed);
  parts.events.on(pulled.changesChannel, read);
  parts.events.onResync(read);
  const stop = new AbortController();
  const reading = every(
    base.clock,
    SAFETY_EVERY_MS,
    stop.signal,
    async () => {
      await pulled.read();
    },
    failed,
  );
  return {
    stop: async () => {
      stop.abort();
      await reading;
      await reporter.stop();
    },
  };
}

/** The tracker's live orders of ours as the runner's OwnOrder (acknowledged ones: with a txid). */
function ownOrders(live: readonly TrackedOrder[] | undefined): OwnOrder[] {
  return (live ?? []).flatMap((o) =>
    o.txid === null || o.slot === 'foreign' || TERMINAL_STATES.has(o.state)
      ? []
      : [
          {
            txid: o.txid,
            userref: o.userref,
            slot: parseSlotKey(o.slot),
            generation: o.generation,
            side: o.side,
            orderType: 'limit',
            price: dec(o.price),
            volume: dec(o.volume),
            volumeExecuted: dec(o.volumeExecuted),
            openedAtMs: o.openedAtMs,
            postOnly: o.postOnly,
          },
        ],
  );
}

/** The tracker's orders resting on the book, as the snapshot takes them out of Depth. */
function restingOf(live: readonly TrackedOrder[] | undefined): OwnResting[] {
  return (live ?? []).flatMap((o) =>
    o.txid === null || !isOurResting(o)
      ? []
      : [
          {
            txid: o.txid,
            side: o.side,
            price: dec(o.price),
            remaining: dec(o.volume).minus(dec(o.volumeExecuted)),
            openedAtMs: o.openedAtMs,
          },
        ],
  );
}
