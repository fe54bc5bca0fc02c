import { printable } from '../core/index.js';
import type { StatusReport } from '../daemon/status-report.js';
import type { StopReport } from '../safety/index.js';
import { round } from './demo-status.js';

/** How a demo ended: what it did, and what it left. */
export interface DemoEnd {
  readonly ranMs: number;
  /** Status read once every role stopped. */
  readonly report: StatusReport;
  /** The supervisor's cancel and disarm; absent when none ran. */
  readonly shutdown: StopReport | undefined;
  /** Whether the shutdown was to cancel the orders (supervisor.shutdown.cancel_orders). */
  readonly cancelAsked: boolean;
  /** Orders of the paper account still on the simulator's book, by pair altname. */
  readonly ordersLeft: ReadonlyMap<string, number>;
}

/** A summary line: warn when something is left for the operator to look at. */
export interface SummaryLine {
  readonly level: 'info' | 'warn';
  readonly fields: Record<string, unknown>;
  readonly msg: string;
}

/**
 * What the demo prints as it exits: how long it ran and how the shutdown went, then per pair its
 * fills, volume, PnL (mark-to-market since the runner started; realized without a runner report)
 * and the orders still on the simulator's book, which the shutdown is meant to leave at 0.
 */
export function demoSummary(end: DemoEnd): SummaryLine[] {
  const left = [...end.ordersLeft.values()].reduce((a, b) => a + b, 0);
  const shutdown = shutdownText(end.shutdown, end.cancelAsked);
  const lines: SummaryLine[] = [
    {
      level: left > 0 || !shutdown.clean ? 'warn' : 'info',
      fields: { ranMs: end.ranMs, shutdown: end.shutdown ?? null, ordersLeft: left },
      msg:
        `demo summary: ran ${duration(end.ranMs)}; shutdown: ${shutdown.text}; ` +
        `${left} orders left on the simulator`,
    },
  ];
  for (const p of end.report.pairs) {
    const pnl =
      p.pnl === undefined
        ? `realized pnl ${round(p.realizedPnl, 2)}`
        : `pnl ${round(p.pnl.total, 2)} (spread ${round(p.pnl.spread, 2)} inv ` +
          `${round(p.pnl.inventory, 2)} fees ${round(p.pnl.fees, 2)})`;
    const volume =
      p.pnl === undefined
        ? ''
        : `, volume ${round(p.pnl.volumeBase, 4)} (${round(p.pnl.volumeQuote, 2)} quote)`;
    const pairLeft = end.ordersLeft.get(p.altname) ?? 0;
    lines.push({
      level: pairLeft > 0 ? 'warn' : 'info',
      fields: {
        pair: p.altname,
        fills: p.fills,
        ...(p.pnl === undefined
          ? { realizedPnl: p.realizedPnl }
          : { pnl: p.pnl.total, volumeBase: p.pnl.volumeBase, volumeQuote: p.pnl.volumeQuote }),
        ordersLeft: pairLeft,
      },
      msg: printable(
        `demo summary: ${p.altname} ${p.fills} fills${volume}, ${pnl}, ${pairLeft} orders left`,
      ),
    });
  }
  return lines;
}

function shutdownText(
  report: StopReport | undefined,
  cancelAsked: boolean,
): { text: string; clean: boolean } {
  if (report === undefined) return { text: 'no supervisor ran', clean: false };
  const cancelled = !cancelAsked
    ? 'orders left on purpose (supervisor.shutdown.cancel_orders: false)'
    : report.cancelled === undefined
      ? 'the cancel was NOT confirmed'
      : `${report.cancelled} orders cancelled`;
  const disarmed = report.disarmed
    ? 'dead-man timer disarmed'
    : 'the dead-man timer may still be armed';
  const clean = (!cancelAsked || report.cancelled !== undefined) && report.disarmed;
  return { text: `${cancelled}, ${disarmed}`, clean };
}

/** `45s`, `2m05s`, `1h02m05s`. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number): string => String(n).padStart(2, '0');
  if (h > 0) return `${h}h${two(m)}m${two(sec)}s`;
  return m > 0 ? `${m}m${two(sec)}s` : `${sec}s`;
}
