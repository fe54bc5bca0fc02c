import { assetName } from '../core/index.js';
import { pairLimits } from '../safety/index.js';
import type { BotSettings } from '../daemon/bot-config.js';
import type { QuotingJson } from '../daemon/quoting.js';
import type { LiveRoleBase } from '../daemon/role-base.js';
import { readBaseStatus, type PairStatus, type StatusReport } from '../daemon/status-report.js';
import type { AuditTrail } from '../daemon/audit-trail.js';
import type { ConsoleEvents } from './console-events.js';
import {
  CONSOLE_REPORT,
  HISTORY_POINTS,
  historyKey,
  type RunnerConsoleReport,
  type RunnerPairReport,
} from '../daemon/console-report.js';
import type {
  ChartPoint,
  ConsoleFill,
  ConsoleQuoting,
  ConsoleHistory,
  ConsolePair,
  ConsoleState,
} from './state.js';

/** Events, audit entries and fills a state carries. */
const EVENTS_SHOWN = 50;
const AUDIT_SHOWN = 20;
const FILLS_SHOWN = 20;
const HOUR_MS = 3_600_000;

export interface ConsoleSources {
  readonly base: LiveRoleBase;
  readonly settings: BotSettings;
  readonly events: ConsoleEvents;
  readonly trail: AuditTrail;
}

/**
 * The deployment as the console shows it, from what every process leaves in Redis: the status
 * report `makerd status` reads (the pulled pairs included), the runner's console report (book,
 * orders, data ages), the tracker's fills and the recent events. One read serves every open page.
 */
export async function readConsoleState(s: ConsoleSources): Promise<ConsoleState> {
  const { base, settings } = s;
  const { tracker } = base;
  const [status, runner, events, audit, fills] = await Promise.all([
    readBaseStatus(base),
    base.flags.reported(CONSOLE_REPORT) as Promise<RunnerConsoleReport | undefined>,
    s.events.recent(EVENTS_SHOWN),
    s.trail.recent(AUDIT_SHOWN),
    Promise.all(base.pairs.map((p) => tracker.fills(p.id, FILLS_SHOWN))),
  ]);
  const now = status.atMs;
  return {
    atMs: now,
    instance: String(settings.instance),
    halt: status.halt,
    roles: {
      runner: status.roles.runner,
      executor: status.roles.executor,
      supervisor: supervisorLiveness(status, now),
    },
    ...supervisorPart(status),
    pairs: status.pairs.map((p, i) =>
      pairState(s, p, runner?.pairs[p.altname], now, fills[i] ?? []),
    ),
    ...(status.pnlSinceMs === undefined ? {} : { pnlSinceMs: status.pnlSinceMs }),
    // Logs name pairs by their id (XETHZUSD); the page by altname.
    events: events.map((e) => {
      const pair = base.pairs.find((p) => p.id === e.pair)?.altname;
      return pair === undefined ? e : { ...e, pair };
    }),
    audit: audit.reverse(),
  };
}

/** The last hour of every pair's chart, for a page that just connected. */
export async function readConsoleHistory(s: ConsoleSources): Promise<ConsoleHistory> {
  const { base, settings } = s;
  const { tracker, redis } = base;
  const since = base.clock.now() - HOUR_MS;
  const pairs = await Promise.all(
    base.pairs.map(async (p) => {
      const [raw, fills] = await Promise.all([
        redis.lrange(historyKey(settings.redis.prefix, p.altname), -HISTORY_POINTS, -1),
        tracker.fills(p.id, 500),
      ]);
      const points = raw
        .map((line) => JSON.parse(line) as ChartPoint)
        .filter((pt) => pt.tMs >= since);
      return {
        pair: p.altname,
        points,
        fills: fills
          .filter((f) => f.atMs >= since)
          .map(consoleFill)
          .reverse(),
      };
    }),
  );
  return { pairs };
}

function pairState(
  s: ConsoleSources,
  p: PairStatus,
  runner: RunnerPairReport | undefined,
  now: number,
  fills: readonly Parameters<typeof consoleFill>[0][],
): ConsolePair {
  const info = s.base.pairs.find((x) => x.id === p.pair);
  const maxBase = pairLimits(s.settings.supervisor.risk, p).max_base;
  const markout = p.pnl?.markouts.find((m) => m.horizonMs === 10_000)?.meanBps;
  return {
    pair: p.altname,
    base: assetName(info?.base ?? ''),
    quote: assetName(info?.quote ?? ''),
    executor: p.executor,
    pulled: p.pulled !== undefined,
    ...(runner === undefined
      ? {}
      : {
          mode: runner.mode,
          ...(runner.modeReason === undefined ? {} : { modeReason: runner.modeReason }),
          book: {
            ...(runner.bid === undefined ? {} : { bid: runner.bid }),
            ...(runner.ask === undefined ? {} : { ask: runner.ask }),
            ...(runner.mid === undefined ? {} : { mid: runner.mid }),
          },
          ...(runner.point === undefined ? {} : { point: runner.point }),
        }),
    orders: runner?.orders ?? [],
    inventory: {
      base: p.inventory.base,
      quote: p.inventory.quote,
      ...(maxBase === undefined ? {} : { maxBase }),
    },
    ...(p.pnl === undefined
      ? {}
      : {
          pnl: {
            total: p.pnl.total,
            spread: p.pnl.spread,
            inventory: p.pnl.inventory,
            fees: p.pnl.fees,
            fills: p.pnl.fills,
            ...(markout === undefined ? {} : { markout10sBps: markout }),
          },
        }),
    ...(p.quoting === undefined ? {} : { quoting: consoleQuoting(p.quoting) }),
    ratecount: {
      ...p.ratecount,
      planned: Math.max(0, p.ratecount.max - s.settings.executor.headroom_points),
    },
    dataAges: (runner?.sources ?? []).map((x) => ({
      source: x.source,
      ageMs: Math.max(0, now - x.receivedAtMs),
      ...(x.staleAfterMs === undefined ? {} : { staleAfterMs: x.staleAfterMs }),
    })),
    fills: fills.map(consoleFill),
  };
}

function consoleQuoting(q: QuotingJson): ConsoleQuoting {
  return {
    makerFeeBps: q.fees.makerBps,
    takerFeeBps: q.fees.takerBps,
    feeSource: q.fees.source,
    ...(q.floor === undefined ? {} : { floor: q.floor }),
    adverseFills: q.adverseSelection.fills,
    ...(q.model === undefined ? {} : { model: q.model }),
  };
}

function consoleFill(f: {
  txid: string;
  atMs: number;
  side: 'buy' | 'sell';
  price: string;
  volume: string;
}): ConsoleFill {
  return { id: `${f.txid}@${f.atMs}`, tMs: f.atMs, side: f.side, price: f.price, volume: f.volume };
}

function supervisorLiveness(r: StatusReport, now: number): { alive: boolean; beatAgeMs?: number } {
  const at = r.supervisor?.atMs;
  if (r.supervisor === undefined) return { alive: false };
  return typeof at === 'number'
    ? { alive: true, beatAgeMs: Math.max(0, now - at) }
    : { alive: true };
}

type ConsoleNextMaintenance = NonNullable<ConsoleState['supervisor']>['nextMaintenance'];

function supervisorPart(r: StatusReport): Pick<ConsoleState, 'supervisor'> {
  const sup = r.supervisor;
  if (sup === undefined) return {};
  const deadMan = sup.deadMan as { triggerAtMs?: unknown } | undefined;
  const risk = sup.risk as string | { reason?: string } | undefined;
  const rest = sup.rest as { level: number; max: number } | undefined;
  const next = sup.nextMaintenance as ConsoleNextMaintenance | undefined;
  return {
    supervisor: {
      exchange: typeof sup.exchange === 'string' ? sup.exchange : 'unknown',
      posture: typeof sup.posture === 'string' ? sup.posture : 'unknown',
      ...(typeof deadMan?.triggerAtMs === 'number'
        ? { deadManTriggerAtMs: deadMan.triggerAtMs }
        : {}),
      risk:
        typeof risk === 'object' ? `breached: ${risk.reason ?? '?'}` : String(risk ?? 'unchecked'),
      ...(rest === undefined ? {} : { rest: { level: rest.level, max: rest.max } }),
      ...(next === undefined ? {} : { nextMaintenance: next }),
    },
  };
}
