import { printable } from '../core/index.js';
import type { StatusReport } from '../daemon/status-report.js';
import type { PairQuotes } from '../orders/index.js';

/** What the runner says of a pair in its status (runnerStatus). */
interface RunnerPair {
  readonly pair: string;
  readonly mid?: string;
}

/** A pair's figures on the status line, most wanted first: `shown` always, `extra` while room. */
interface PairFields {
  readonly shown: readonly string[];
  readonly extra: readonly string[];
}

/**
 * The demo's status, fitted to `width` columns: one line when everything fits (a wide terminal,
 * or a log line: width Infinity); else the halt state and roles down on a line, then a line per
 * pair with our best bid and ask, the mid, position and PnL, then fills, orders, ratecount and
 * the PnL split (mark-to-market since the runner started: spread captured, inventory moves,
 * fees; realized PnL when no runner reports one) while they fit. Figures rounded for reading;
 * the exact ones are in `makerd status` and /status. Printable: the halt reason is anyone's text.
 */
export function demoStatusLines(
  r: StatusReport,
  local: object,
  quotes: ReadonlyMap<string, PairQuotes>,
  width: number,
): string[] {
  const time = new Date(r.atMs).toISOString().slice(11, 19);
  const state = r.halt.halted ? `HALTED (${r.halt.reason ?? 'no reason'})` : 'trading';
  const down = Object.entries(r.roles)
    .filter(([, beat]) => !beat.alive)
    .map(([role]) => `${role} down`);
  const head = printable([time, state, ...down].join(' | '));
  const runnerPairs = new Map(
    ((local as { pairs?: RunnerPair[] }).pairs ?? []).map((p) => [p.pair, p]),
  );
  const pairs = r.pairs.map((p) =>
    pairFields(p, runnerPairs.get(p.altname)?.mid, quotes.get(p.altname) ?? {}),
  );
  const oneLine = [head, ...pairs.map((p) => [...p.shown, ...p.extra].join(' '))].join(' | ');
  if (oneLine.length <= width) return [oneLine];
  return [head, ...pairs.map((p) => fitted(p, width))];
}

function pairFields(
  p: StatusReport['pairs'][number],
  mid: string | undefined,
  q: PairQuotes,
): PairFields {
  const shown = [
    printable(p.altname),
    ...(p.pulled === undefined ? [] : ['PULLED']),
    `bid ${q.bid ?? '-'}`,
    `ask ${q.ask ?? '-'}`,
    `mid ${mid ?? '?'}`,
    `pos ${round(p.inventory.base, 4)}`,
    p.pnl === undefined
      ? `realized pnl ${round(p.realizedPnl, 2)}`
      : `pnl ${round(p.pnl.total, 2)}`,
  ];
  const extra = [
    `${p.fills} fills`,
    `${p.openOrders} orders`,
    `rc ${p.ratecount.level.toFixed(0)}/${p.ratecount.max}`,
    ...(p.pnl === undefined
      ? []
      : [
          `(spread ${round(p.pnl.spread, 2)} inv ${round(p.pnl.inventory, 2)} ` +
            `fees ${round(p.pnl.fees, 2)})`,
        ]),
  ];
  return { shown, extra };
}

/** The pair's line: what is always shown, then the extras in order while they fit. */
function fitted(p: PairFields, width: number): string {
  let line = p.shown.join(' ');
  for (const field of p.extra) {
    if (line.length + 1 + field.length > width) break;
    line = `${line} ${field}`;
  }
  return line;
}

/** A decimal string rounded for the eye (display only: never used for money decisions). */
export function round(text: string, places: number): string {
  const n = Number(text);
  return Number.isFinite(n) ? n.toFixed(places) : text;
}
