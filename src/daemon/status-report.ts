import {
  orderEntryFailure,
  readOrderEntry,
  type HaltState,
  type OrderEntryReport,
  type PullState,
} from '../bus/index.js';
import { Decimal, printable, type Clock, type PairInfo } from '../core/index.js';
import type { OrderState } from '../orders/index.js';
import type { PnlSummaryJson } from '../pnl/index.js';
import { PNL_REPORT, type PnlReport } from './pnl-live.js';
import type { QuotingJson } from './quoting.js';
import type { RoleBase } from './role-base.js';
import type { Stores } from './stores.js';

/** What `makerd status` and the admin endpoint's /status show, read from Redis. */
export interface StatusReport {
  readonly atMs: number;
  readonly mode: 'halted' | 'trading';
  readonly halt: HaltState;
  /**
   * Since when this Redis holds makerd's state: fills, positions, PnL and fees below count from
   * here. Later than the bot's start when Redis was restarted empty (see docs/operations.md).
   */
  readonly stateSinceMs?: number | undefined;
  /**
   * Since when the PnL split under each pair's `pnl` counts: the running runner's start. Absent
   * with no runner reporting.
   */
  readonly pnlSinceMs?: number | undefined;
  readonly roles: Readonly<Record<'runner' | 'executor', { alive: boolean; beatAgeMs?: number }>>;
  /** The supervisor's own last report (exchange status, posture, dead-man, risk); absent: none running. */
  readonly supervisor: Record<string, unknown> | undefined;
  readonly pairs: readonly PairStatus[];
}

export interface PairStatus {
  readonly pair: string;
  readonly altname: string;
  /** Whether an executor process holds the pair's lease (works it). */
  readonly executor: boolean;
  readonly openOrders: number;
  readonly ordersByState: Partial<Record<OrderState, number>>;
  readonly inventory: { readonly base: string; readonly quote: string; readonly avgPrice: string };
  readonly realizedPnl: string;
  readonly fees: string;
  readonly fills: number;
  readonly ratecount: { readonly level: number; readonly max: number };
  /** PnL attribution and markouts from the runner (docs/operations.md); absent without one. */
  readonly pnl?: PnlSummaryJson | undefined;
  /** Fees, the half-spread floor and its parts, the model, queue places (the runner's). */
  readonly quoting?: QuotingJson | undefined;
  /** Set when an operator pulled the pair (the console): no quotes until restored. */
  readonly pulled?: PullState | undefined;
  /** Its executor's word on order entry (failing: no order reaches the engine in time). */
  readonly orderEntry?: OrderEntryReport | undefined;
}

export interface StatusSources {
  /** The stores the roles share: this process's own, or Redis's for `makerd status`. */
  readonly stores: Pick<Stores, 'tracker' | 'ratecount' | 'flags' | 'leases' | 'pulled'>;
  /** What the exchange calls them (AssetPairs), or what the roles recorded of it in Redis. */
  readonly pairs: readonly Pick<PairInfo, 'id' | 'altname'>[];
  readonly clock: Clock;
}

export async function readStatus(s: StatusSources): Promise<StatusReport> {
  const now = s.clock.now();
  const { tracker, ratecount, flags, leases } = s.stores;
  const beat = async (role: 'runner' | 'executor') => {
    const at = await flags.alive(role);
    return at === undefined ? { alive: false } : { alive: true, beatAgeMs: Math.round(now - at) };
  };
  const [halt, runner, executor, supervisor, pnl, pulled] = await Promise.all([
    flags.read(),
    beat('runner'),
    beat('executor'),
    flags.reported('supervisor'),
    flags.reported(PNL_REPORT).then(pnlReportOf),
    s.stores.pulled.read(),
  ]);
  const pairs = await Promise.all(
    s.pairs.map(async (p): Promise<PairStatus> => {
      const [live, position, level, lease, orderEntry] = await Promise.all([
        tracker.live(p.id),
        tracker.position(p.id),
        ratecount.level(p.id, now).then((r) => r.level),
        leases.taken(p.id),
        readOrderEntry(flags, p.id),
      ]);
      const ordersByState: Partial<Record<OrderState, number>> = {};
      for (const o of live) ordersByState[o.state] = (ordersByState[o.state] ?? 0) + 1;
      return {
        pair: p.id,
        altname: p.altname,
        executor: lease,
        openOrders: live.length,
        ordersByState,
        inventory: { base: position.base, quote: position.quote, avgPrice: position.avgPrice },
        realizedPnl: position.realizedPnl,
        fees: position.fees,
        fills: position.fills,
        ratecount: { level: Math.round(level * 100) / 100, max: ratecount.limits.max },
        pnl: pnl?.pairs[p.altname],
        quoting: pnl?.quoting?.[p.altname],
        pulled: pulled.get(p.altname),
        orderEntry,
      };
    }),
  );
  return {
    atMs: now,
    mode: halt.halted ? 'halted' : 'trading',
    halt,
    stateSinceMs: flags.stateSinceMs,
    pnlSinceMs: pnl?.sinceMs,
    roles: { runner, executor },
    supervisor,
    pairs,
  };
}

/** The runner's report as it left it in Redis; anything else is no report. */
function pnlReportOf(raw: Record<string, unknown> | undefined): PnlReport | undefined {
  if (raw === undefined || typeof raw.sinceMs !== 'number') return undefined;
  const pairs = raw.pairs;
  return typeof pairs === 'object' && pairs !== null ? (raw as unknown as PnlReport) : undefined;
}

/** readStatus over a running process's base (its stores and pairs). */
export function readBaseStatus(base: RoleBase): Promise<StatusReport> {
  return readStatus({ stores: base, pairs: base.pairs, clock: base.clock });
}

/**
 * The report for people: one line per fact. Names and reasons in it come from operators, the
 * exchange or a remote /status, so each line is made printable: none can forge another.
 */
export function formatStatus(r: StatusReport): string {
  const lines: string[] = [];
  lines.push(
    r.halt.halted
      ? `HALTED: ${r.halt.reason ?? '?'} (by ${r.halt.by ?? '?'}${
          r.halt.sinceMs === undefined ? '' : ` since ${new Date(r.halt.sinceMs).toISOString()}`
        })`
      : 'trading (not halted)',
  );
  for (const [role, b] of Object.entries(r.roles)) {
    lines.push(`${role}: ${b.alive ? `alive (beat ${b.beatAgeMs} ms ago)` : 'NOT ALIVE'}`);
  }
  const sup = r.supervisor;
  if (sup === undefined) lines.push('supervisor: NOT RUNNING (no dead-man switch)');
  else {
    const dm = sup.deadMan as { triggerAtMs?: number } | undefined;
    const risk = sup.risk as string | { reason?: string } | undefined;
    const rest = sup.rest as { level: number; max: number } | undefined;
    lines.push(
      `supervisor: exchange ${String(sup.exchange)}, posture ${String(sup.posture)}, dead-man ${
        dm?.triggerAtMs === undefined
          ? 'disarmed'
          : `fires at ${new Date(dm.triggerAtMs).toISOString()}`
      }, risk ${typeof risk === 'object' ? `BREACHED: ${risk.reason ?? ''}` : String(risk)}${
        rest === undefined ? '' : `, REST counter ${rest.level}/${rest.max}`
      }`,
    );
  }
  if (r.stateSinceMs !== undefined && Number.isFinite(r.stateSinceMs)) {
    lines.push(`fills, positions and PnL counted since ${new Date(r.stateSinceMs).toISOString()}`);
  }
  if (r.pnlSinceMs !== undefined) {
    lines.push(
      `PnL split and markouts counted since ${new Date(r.pnlSinceMs).toISOString()} (runner start)`,
    );
  }
  for (const p of r.pairs) {
    lines.push(
      `${p.altname}: ${p.executor ? 'executor working' : 'NO EXECUTOR'}, ${p.openOrders} open orders, ` +
        `base ${p.inventory.base}, quote ${p.inventory.quote}, realized PnL ${shown(p.realizedPnl)} ` +
        `(fees ${p.fees}, ${p.fills} fills), ratecount ${p.ratecount.level}/${p.ratecount.max}`,
    );
    if (p.pulled !== undefined) {
      lines.push(
        `  PULLED by ${p.pulled.by} since ${new Date(p.pulled.sinceMs).toISOString()}: ` +
          'no quotes until restored (the console)',
      );
    }
    if (p.orderEntry?.failing === true) {
      const since = new Date(p.orderEntry.sinceMs).toISOString();
      lines.push(`  ${orderEntryFailure(p.orderEntry)} (since ${since})`);
    }
    if (p.pnl !== undefined) lines.push(...pnlLines(p.pnl));
    if (p.quoting !== undefined) lines.push(...quotingLines(p.quoting));
  }
  return `${lines.map(printable).join('\n')}\n`;
}

/**
 * An average-cost PnL carries 40-digit remainders; the line shows 8 places (the JSON keeps every
 * digit).
 */
function shown(amount: string): string {
  return new Decimal(amount).toDecimalPlaces(8).toString();
}

/** The PnL split and its companions, indented under the pair's line. */
function pnlLines(p: PnlSummaryJson): string[] {
  const pct = (share: number | undefined) =>
    share === undefined ? '?' : `${(share * 100).toFixed(1)}%`;
  const bps = (value: number | undefined) => (value === undefined ? '?' : `${value} bps`);
  const markouts = p.markouts
    .map(
      (m) =>
        `${m.horizonMs / 1000} s ${bps(m.meanBps)}${m.pending > 0 ? ` (${m.pending} pending)` : ''}`,
    )
    .join(', ');
  const q = p.timeAtQuote;
  return [
    `  PnL ${p.total} = spread ${p.spread} + inventory ${p.inventory} - fees ${p.fees} ` +
      `(position ${p.position} marked at ${p.mark ?? '?'}; ${p.fills} fills, ` +
      `${p.volumeBase} base, ${p.volumeQuote} quote)`,
    `  markouts ${markouts === '' ? 'none' : markouts}`,
    `  at quote: bid ${pct(q.bid)}, ask ${pct(q.ask)}, both ${pct(q.both)}; distance from target ` +
      `${bps(p.quoteDistanceBps.mean)}; fill rate ${p.fillRatePerHour ?? '?'}/h; ratecount use ` +
      `mean ${pct(p.ratecountUse.mean)}, max ${pct(p.ratecountUse.max)}`,
  ];
}

/** Fees, the floor and its parts, the model's figures and our queue places, indented. */
function quotingLines(q: QuotingJson): string[] {
  const fees =
    `  fees maker ${q.fees.makerBps} bps, taker ${q.fees.takerBps} bps ` +
    `(${q.fees.source === 'trade-volume' ? 'TradeVolume' : 'fee ladder'}, 30-day volume ${q.fees.volumeUsd} USD)`;
  const f = q.floor;
  const floor =
    f === undefined
      ? '  half-spread floor: none (the strategy reports none)'
      : f.enabled
        ? `  half-spread floor ${f.halfSpreadBps} bps = maker fee ${f.makerFeeBps} + adverse selection ` +
          `${f.adverseBps} (${q.adverseSelection.fills} fills, ${q.adverseSelection.horizonMs / 1000} s) ` +
          `+ edge ${f.minEdgeBps}`
        : `  half-spread floor OFF (maker fee ${f.makerFeeBps} bps, adverse selection ${f.adverseBps} bps)`;
  const lines = [fees, floor];
  const model = Object.entries(q.model ?? {});
  if (model.length > 0) {
    lines.push(
      `  model ${model.map(([k, v]) => `${k} ${typeof v === 'number' ? round(v) : v}`).join(', ')}`,
    );
  }
  for (const o of q.queue) {
    lines.push(
      `  queue ${o.side} ${o.price}: ${o.ahead} ahead, ${o.behind} behind ` +
        `(${o.source === 'level3' ? 'Level3, exact' : `estimated, ${o.rule}`})`,
    );
  }
  return lines;
}

function round(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(6);
}
