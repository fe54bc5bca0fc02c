import type { StatusReport } from '../daemon/status-report.js';

/** What the runner says of a pair in its status (runnerStatus). */
interface RunnerPair {
  readonly pair: string;
  readonly mid?: string;
}

/**
 * The demo's status line: halt state, roles that are down, then per pair the mid, our open
 * orders, inventory, the PnL split (mark-to-market since the runner started: spread captured,
 * inventory moves, fees; realized PnL when no runner reports one), fills and ratecount. Figures rounded for reading; the exact
 * ones are in `makerd status` and /status.
 */
export function demoStatusLine(r: StatusReport, local: object): string {
  const time = new Date(r.atMs).toISOString().slice(11, 19);
  const state = r.halt.halted ? `HALTED (${r.halt.reason ?? 'no reason'})` : 'trading';
  const down = Object.entries(r.roles)
    .filter(([, beat]) => !beat.alive)
    .map(([role]) => `${role} down`);
  const runnerPairs = new Map(
    ((local as { pairs?: RunnerPair[] }).pairs ?? []).map((p) => [p.pair, p]),
  );
  const pairs = r.pairs.map((p) => {
    const mid = runnerPairs.get(p.altname)?.mid;
    return [
      p.altname,
      mid === undefined ? 'mid ?' : `mid ${round(mid, 2)}`,
      `${p.openOrders} orders`,
      `base ${round(p.inventory.base, 4)}`,
      p.pnl === undefined
        ? `realized pnl ${round(p.realizedPnl, 2)}`
        : `pnl ${round(p.pnl.total, 2)} = spread ${round(p.pnl.spread, 2)} ` +
          `+ inv ${round(p.pnl.inventory, 2)} - fees ${round(p.pnl.fees, 2)}`,
      `${p.fills} fills`,
      `rc ${p.ratecount.level.toFixed(0)}/${p.ratecount.max}`,
    ].join(' ');
  });
  return [time, state, ...down, ...pairs].join(' | ');
}

/** A decimal string rounded for the eye (display only: never used for money decisions). */
function round(text: string, places: number): string {
  const n = Number(text);
  return Number.isFinite(n) ? n.toFixed(places) : text;
}
