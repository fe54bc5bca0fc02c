/**
 * makerd as `makerd run` wires it, all in this process: MarketFeed → Runner → IntentBus (a Redis
 * register and a BullMQ job per pair) → Executor (a BullMQ Worker per pair) → SpotClient → the
 * simulator (in its own process), with the key's nonces in Redis as every role takes them and the
 * key's nonce window declared (exchange.nonce_window), so calls on different slots overlap. Only
 * the clock (high resolution) and the wiring by hand differ from the roles.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { RedisControlFlags, RedisIntentBus, deleteKeysUnder } from '../../src/bus/index.js';
import { encodeUserref, parseSlotKey } from '../../src/core/index.js';
import {
  RedisNonceSource,
  RestLimiter,
  SpotClient,
  nonceKeyFor,
} from '../../src/exchange/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import {
  Executor,
  ExecutorMetrics,
  RedisLeases,
  RedisRatecountStore,
  type WireSample,
} from '../../src/executor/index.js';
import { RedisOrderTracker } from '../../src/orders/index.js';
import { loadPairs } from '../../src/market/index.js';
import type { IntentSink } from '../../src/runner/ports.js';
import { Runner } from '../../src/runner/runner.js';
import { chaserFor, type WantedBook } from './chase-strategy.js';
import { sampleDistance } from './distance.js';
import { percentiles, fmtMs, counterTotals } from './stats.js';
import type { RunOptions, RunResult } from './result.js';
import { readExchangeSide, toExchange } from './exchange-side.js';
import {
  INSTANCE,
  NONCE_WINDOW,
  PAIR_NAMES,
  REDIS_URL,
  countSigned,
  executorConfig,
  feedFor,
  hrClock,
  readSimState,
  runnerConfig,
  startBenchSim,
} from './setup.js';

/** The start of a run left out of the settled tick-to-wire figure. */
const SETTLE_MS = 10_000;

export async function runMakerd(opts: RunOptions): Promise<RunResult> {
  const clock = hrClock;
  const { sim, key } = await startBenchSim(opts.tier, 'makerd', opts.simCpus);
  const prefix = `makerd-bench-${randomUUID().slice(0, 8)}`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const nonceKey = nonceKeyFor(key.apiKey);
  // Runner role and executor role each build their own client; both take nonces from Redis and,
  // being in one process as under `makerd run`, share the key's REST call counter: two counters
  // for one key would each think the whole budget theirs and overrun it together.
  const restLimiter = new RestLimiter({ tier: opts.tier, clock, headroom: 1 });
  const clientFor = (): SpotClient =>
    new SpotClient({
      baseUrl: sim.url,
      credentials: key,
      tier: opts.tier,
      restLimiter,
      nonceSource: new RedisNonceSource({ redis, key: nonceKey, clock }),
      nonceWindow: NONCE_WINDOW,
      clock,
    });
  const feedClient = clientFor();
  const execClient = clientFor();
  const registry = new Registry();
  const bus = new RedisIntentBus({ connection: redis, prefix, clock });
  const flags = new RedisControlFlags({ connection: redis, prefix });
  const entries = countSigned();
  let executor: Executor | undefined;
  let pairIds: readonly string[] = [];
  try {
    const pairs = await loadPairs(feedClient, [...PAIR_NAMES]);
    pairIds = pairs.map((p) => p.id);
    await flags.read();
    const wanted: WantedBook = new Map();
    const feed = feedFor(feedClient, pairs, opts.tier);

    // A pass-through sink, to time the runner's publish (Redis) on the way to the executor.
    const published: number[] = [];
    const publishCall: number[] = [];
    const builds: number[] = [];
    const sink: IntentSink = {
      publish: async (intents) => {
        const t0 = clock.now();
        const out = await bus.publish(intents);
        const t1 = clock.now();
        publishCall.push(t1 - t0);
        for (const i of intents) published.push(t1 - i.snapshotAtMs);
        return out;
      },
    };
    const runner = new Runner({
      feed,
      sink,
      strategies: pairs.map((p) => chaserFor(p, opts.levels, wanted, builds)),
      config: runnerConfig,
      instance: INSTANCE,
      clock,
    });
    const wires: WireSample[] = [];
    const wiredAt: number[] = [];
    executor = new Executor({
      client: execClient,
      bus,
      tracker: new RedisOrderTracker({ redis, prefix }),
      ratecount: new RedisRatecountStore(
        redis,
        `${prefix}:ratecount`,
        MATCHING_ENGINE[execClient.tier],
      ),
      leases: new RedisLeases(redis, prefix, clock),
      pairs,
      instance: INSTANCE,
      config: executorConfig,
      flags,
      metrics: new ExecutorMetrics(registry),
      clock,
      owner: 'bench',
      onWire: (s) => {
        wires.push(s);
        wiredAt.push(clock.now());
      },
    });
    await executor.start();

    runner.start();
    const startedAt = clock.now();
    feed.start();
    const distance = sampleDistance(sim, key.apiKey, wanted);
    await clock.sleep(opts.seconds * 1000);
    const stoppedAt = clock.now();
    const dist = await distance.stop();
    await feed.stop();
    await runner.stop();
    await executor.stop();
    executor = undefined;
    const simFigures = await readSimState(sim, key.apiKey);
    const exchange = await readExchangeSide(sim, key.apiKey);

    const durationMs = stoppedAt - startedAt;
    const limits = MATCHING_ENGINE[opts.tier];
    const pointsAvailable = pairs.length * (limits.max + (limits.decayPerSec * durationMs) / 1000);
    const pointsCharged = Object.values(simFigures.chargedByPair).reduce((a, b) => a + b, 0);

    const details: string[] = [];
    const stats = runner.stats();
    const intents = await counterTotals(registry, 'makerd_executor_intents_total', 'outcome');
    const points = await counterTotals(registry, 'makerd_ratecount_points_total', 'action');
    const unknowns = await counterTotals(registry, 'makerd_unknown_outcomes_total', 'resolution');
    const answers = await counterTotals(registry, 'makerd_order_actions_total', 'outcome');
    details.push(
      `runner: ${sum(stats.map((s) => s.ticks))} ticks, ${sum(stats.map((s) => s.intents))} intents published, ` +
        `${sum(stats.map((s) => s.coalesced))} coalesced on the bus before the executor took them`,
      `executor intents by outcome: ${fmtMap(intents)}`,
      `order-entry calls by outcome: ${fmtMap(answers)}; unknown outcomes by resolution: ${fmtMap(unknowns)}`,
      `executor ratecount points by action (its model): ${fmtMap(points)}; total ` +
        `${sum([...points.values()]).toFixed(1)} against ${pointsCharged.toFixed(1)} the simulator charged`,
      `snapshot built (from the time it is stamped with to ready; before tick-to-wire starts): p50 ` +
        `${fmtMs(percentiles(builds).p50)} ms, p99 ${fmtMs(percentiles(builds).p99)} ms`,
      `snapshot → intent published (runner + bus.publish): p50 ${fmtMs(percentiles(published).p50)} ms, ` +
        `p99 ${fmtMs(percentiles(published).p99)} ms; bus.publish call p50 ${fmtMs(percentiles(publishCall).p50)} ms`,
    );
    const byAction = new Map<string, number[]>();
    for (const w of wires)
      byAction.set(w.action, [...(byAction.get(w.action) ?? []), w.tickToWireMs]);
    details.push(
      `tick-to-wire p50 by quarter of the run (the first holds the start-up burst of a full budget, on cold code): ${quarters(
        wires.map((w, i) => ({ atMs: wiredAt[i] ?? 0, ms: w.tickToWireMs })),
        startedAt,
        durationMs,
      )}`,
    );
    const settled = wires
      .filter((_, i) => (wiredAt[i] ?? 0) - startedAt >= SETTLE_MS)
      .map((w) => w.tickToWireMs);
    const ps = percentiles(settled);
    details.push(
      `tick-to-wire after the first ${SETTLE_MS / 1000} s (the start-up burst of a full budget, on cold code, left out): ` +
        `n=${settled.length} p50 ${fmtMs(ps.p50)} ms p99 ${fmtMs(ps.p99)} ms`,
    );
    const timed = wires
      .map((w, i) => ({ w, atS: ((wiredAt[i] ?? 0) - startedAt) / 1000 }))
      .sort((a, b) => b.w.tickToWireMs - a.w.tickToWireMs);
    const slowest = (xs: typeof timed): string =>
      xs
        .slice(0, 12)
        .map(({ w, atS }) => `${fmtMs(w.tickToWireMs)} @ ${atS.toFixed(1)} ${w.action} ${w.from}`)
        .join('; ');
    details.push(
      `slowest tick-to-wire samples (ms @ s into the run, action, from): ${slowest(timed)}`,
      `slowest after the first ${SETTLE_MS / 1000} s: ${slowest(timed.filter((t) => t.atS * 1000 >= SETTLE_MS))}`,
    );
    const fromWhat = {
      snapshot: 'the snapshot (sent on its tick)',
      budget: 'the budget due (waited for points)',
      retry: 'the answer that found its order gone (placed again)',
    } as const;
    for (const [from, what] of Object.entries(fromWhat)) {
      const xs = wires.filter((w) => w.from === from).map((w) => w.tickToWireMs);
      const p = percentiles(xs);
      details.push(
        `tick-to-wire counted from ${what}: n=${xs.length} p50 ${fmtMs(p.p50)} ms p99 ${fmtMs(p.p99)} ms`,
      );
    }
    for (const [action, xs] of byAction) {
      const p = percentiles(xs);
      details.push(
        `tick-to-wire ${action}: n=${xs.length} p50 ${fmtMs(p.p50)} ms p99 ${fmtMs(p.p99)} ms`,
      );
    }

    return {
      tier: opts.tier,
      contender: 'makerd',
      durationMs,
      orderEntry: new Map(entries.orderEntry),
      restCalls: new Map(entries.rest),
      sim: simFigures,
      pointsCharged,
      pointsAvailable,
      distance: dist,
      tickToWire: {
        samples: wires.map((w) => w.tickToWireMs),
        endedAtMs: wires.map((w) => w.sentAtMs),
      },
      toExchange: {
        samples: toExchange(
          exchange,
          wires
            .filter((w) => w.action !== 'CancelOrder' && w.action !== 'CancelOrderBatch')
            .map((w) => ({
              pair: w.pair,
              userref: encodeUserref(INSTANCE, parseSlotKey(w.slot), w.generation),
              startAtMs: w.startAtMs,
            })),
        ),
      },
      intentAge: { samples: wires.map((w) => w.intentAgeMs) },
      duplicates: exchange.duplicates,
      unknown: sum([...unknowns.values()]),
      details,
    };
  } finally {
    entries.stop();
    if (executor !== undefined) await executor.stop().catch(() => undefined);
    for (const id of pairIds) {
      await bus
        .queueFor(id)
        .obliterate({ force: true })
        .catch(() => undefined);
    }
    await bus.close();
    await flags.close();
    await deleteKeysUnder(redis, prefix);
    await redis.del(nonceKey);
    await redis.quit();
    await feedClient.close();
    await execClient.close();
    await sim.close();
  }
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function fmtMap(m: ReadonlyMap<string, number>): string {
  if (m.size === 0) return 'none';
  return [...m]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(1)}`)
    .join(', ');
}

/** p50 of each quarter of the run, in ms. */
function quarters(
  samples: readonly { readonly atMs: number; readonly ms: number }[],
  startedAt: number,
  durationMs: number,
): string {
  const parts: number[][] = [[], [], [], []];
  for (const s of samples) {
    const q = Math.min(3, Math.max(0, Math.floor(((s.atMs - startedAt) / durationMs) * 4)));
    parts[q]?.push(s.ms);
  }
  return parts.map((xs) => `${fmtMs(percentiles(xs).p50)} (n=${xs.length})`).join(' / ') + ' ms';
}
