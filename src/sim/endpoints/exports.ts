/**
 * Data export: AddExport, ExportStatus, RetrieveExport, RemoveExport (permission `data-export`).
 *
 * - Report ids are four upper-case letters (`TCJA`), unique within the simulator.
 * - Lifecycle: `Queued` on AddExport, `Processing` {@link EXPORT_QUEUE_MS} later, `Processed`
 *   {@link EXPORT_PROCESS_MS} after that (the data is read then), removed 14 days after creation
 *   (`expiretm`).
 * - ExportStatus (`report` required) lists the caller's reports of that kind, newest first, with
 *   every field of the spec: `{id, descr, format, report, subtype: 'all', status, flags: '0',
 *   fields, createdtm, expiretm, starttm (processing start), completedtm, datastarttm, dataendtm,
 *   aclass: 'currency', asset: 'all'}`; timestamps are Unix-second strings, `'0'` while unset.
 * - AddExport: `fields` is a comma list from the spec's allowed list for the report, or `all`;
 *   anything else is `EGeneral:Invalid arguments:fields`. `starttm` defaults to 00:00 UTC on the
 *   1st of the current month, `endtm` to now; both inclusive, `endtm` before `starttm` is
 *   `EGeneral:Invalid arguments:endtm`.
 * - RetrieveExport: a zip archive holding one file, `trades.csv` / `ledgers.tsv` etc. The first
 *   row names the columns: identity columns first (trades: `txid`, `pair`, `type`; ledgers:
 *   `txid`), then the requested fields in the spec's order. CSV quotes every value; TSV does not.
 *   Times are `YYYY-MM-DD HH:MM:SS.ffff` UTC. An unknown id, or one not yet processed, is
 *   `EGeneral:Invalid arguments:id`.
 * - RemoveExport: `type=cancel` on a queued or processing report answers `{cancel: true}`,
 *   `type=delete` on a processed one `{delete: true}`; the report is gone from ExportStatus
 *   afterwards. The other combinations are `EGeneral:Invalid arguments:type`.
 */
import { zipSync } from 'fflate';
import { toWire } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { invalidArguments } from '../errors.js';
import { ok, raw, type Route } from '../http/route.js';
import type { Account } from '../state/accounts.js';
import { requireText } from './order-params.js';
import { oneOf, optInt, optList } from './public-params.js';
import { callerOf } from './support.js';

export const EXPORT_QUEUE_MS = 1_000;
export const EXPORT_PROCESS_MS = 2_000;
const RETENTION_MS = 14 * 24 * 3600_000;

type ReportKind = 'trades' | 'ledgers';
type ExportStatus = 'Queued' | 'Processing' | 'Processed';

export const EXPORT_FIELDS: Readonly<Record<ReportKind, readonly string[]>> = {
  trades: [
    'ordertxid',
    'time',
    'ordertype',
    'price',
    'cost',
    'fee',
    'vol',
    'margin',
    'misc',
    'ledgers',
  ],
  ledgers: [
    'refid',
    'time',
    'type',
    'subtype',
    'aclass',
    'asset',
    'amount',
    'fee',
    'balance',
    'wallet',
  ],
};
const IDENTITY: Readonly<Record<ReportKind, readonly string[]>> = {
  trades: ['txid', 'pair', 'type'],
  ledgers: ['txid'],
};

interface Report {
  readonly id: string;
  readonly accountKey: string;
  readonly report: ReportKind;
  readonly descr: string;
  readonly format: 'CSV' | 'TSV';
  /** Undefined for `all`. */
  readonly fields: readonly string[] | undefined;
  readonly createdMs: number;
  readonly dataStartS: number;
  readonly dataEndS: number;
  status: ExportStatus;
  startedMs: number | undefined;
  completedMs: number | undefined;
  file: Uint8Array | undefined;
}

const LETTERS = 26 ** 4;

export function exportRoutes(ctx: SimContext): Route[] {
  const reports = new Map<string, Report>();
  let seq = 0;
  const nextId = (): string => {
    // Multiplying by a number coprime to 26^4 walks every 4-letter id once, not in order.
    seq += 1;
    let n = (seq * 7919 + 12345) % LETTERS;
    let id = '';
    for (let i = 0; i < 4; i++) {
      id = String.fromCharCode(65 + (n % 26)) + id;
      n = Math.floor(n / 26);
    }
    return id;
  };

  ctx.onTick((nowMs) => {
    for (const r of [...reports.values()]) {
      if (r.createdMs + RETENTION_MS <= nowMs) {
        reports.delete(r.id);
        continue;
      }
      if (r.status === 'Queued' && r.createdMs + EXPORT_QUEUE_MS <= nowMs) {
        r.status = 'Processing';
        r.startedMs = r.createdMs + EXPORT_QUEUE_MS;
      }
      const doneAt = r.createdMs + EXPORT_QUEUE_MS + EXPORT_PROCESS_MS;
      if (r.status === 'Processing' && doneAt <= nowMs) {
        const account = ctx.accounts.get(r.accountKey);
        if (account === undefined) {
          reports.delete(r.id);
          continue;
        }
        r.file = buildArchive(ctx, account, r, doneAt);
        r.status = 'Processed';
        r.completedMs = doneAt;
      }
    }
  });

  const mine = (account: Account, id: string): Report => {
    const r = reports.get(id);
    if (r === undefined || r.accountKey !== account.key) throw invalidArguments('id');
    return r;
  };

  return [
    {
      family: 'private',
      name: 'AddExport',
      permission: ['data-export'],
      handle: (req) => {
        const account = callerOf(req);
        const report = oneOf<ReportKind>(req.params, 'report', ['trades', 'ledgers'], 'trades');
        if (req.params.report === undefined) throw invalidArguments('report');
        const descr = requireText(req.params, 'description');
        const format = oneOf<'CSV' | 'TSV'>(req.params, 'format', ['CSV', 'TSV'], 'CSV');
        const requested = optList(req.params, 'fields');
        let fields: string[] | undefined;
        if (requested !== undefined && !requested.includes('all')) {
          const allowed = EXPORT_FIELDS[report];
          if (requested.some((f) => !allowed.includes(f))) throw invalidArguments('fields');
          fields = allowed.filter((f) => requested.includes(f));
        } else if (requested !== undefined && requested.length > 1) {
          throw invalidArguments('fields');
        }
        const now = new Date(req.nowMs);
        const monthStartS = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) / 1000;
        const dataStartS = optInt(req.params, 'starttm') ?? monthStartS;
        const dataEndS = optInt(req.params, 'endtm') ?? Math.floor(req.nowMs / 1000);
        if (dataEndS < dataStartS) throw invalidArguments('endtm');
        const id = nextId();
        reports.set(id, {
          id,
          accountKey: account.key,
          report,
          descr,
          format,
          fields,
          createdMs: req.nowMs,
          dataStartS,
          dataEndS,
          status: 'Queued',
          startedMs: undefined,
          completedMs: undefined,
          file: undefined,
        });
        return ok({ id });
      },
    },
    {
      family: 'private',
      name: 'ExportStatus',
      permission: ['data-export'],
      handle: (req) => {
        const account = callerOf(req);
        const report = oneOf<ReportKind>(req.params, 'report', ['trades', 'ledgers'], 'trades');
        if (req.params.report === undefined) throw invalidArguments('report');
        const list = [...reports.values()]
          .filter((r) => r.accountKey === account.key && r.report === report)
          .sort((a, b) => b.createdMs - a.createdMs)
          .map((r) => statusRecord(r));
        return ok(list);
      },
    },
    {
      family: 'private',
      name: 'RetrieveExport',
      permission: ['data-export'],
      handle: (req) => {
        const r = mine(callerOf(req), requireText(req.params, 'id'));
        if (r.status !== 'Processed' || r.file === undefined) throw invalidArguments('id');
        return raw(200, Buffer.from(r.file), 'application/octet-stream');
      },
    },
    {
      family: 'private',
      name: 'RemoveExport',
      permission: ['data-export'],
      handle: (req) => {
        const account = callerOf(req);
        const id = requireText(req.params, 'id');
        const type = oneOf<'cancel' | 'delete'>(req.params, 'type', ['cancel', 'delete'], 'cancel');
        if (req.params.type === undefined) throw invalidArguments('type');
        const r = mine(account, id);
        const processed = r.status === 'Processed';
        if ((type === 'delete') !== processed) throw invalidArguments('type');
        reports.delete(r.id);
        return ok(type === 'delete' ? { delete: true } : { cancel: true });
      },
    },
  ];
}

const secondsText = (ms: number | undefined): string =>
  ms === undefined ? '0' : String(Math.floor(ms / 1000));

function statusRecord(r: Report): Record<string, unknown> {
  return {
    id: r.id,
    descr: r.descr,
    format: r.format,
    report: r.report,
    subtype: 'all',
    status: r.status,
    flags: '0',
    fields: r.fields === undefined ? 'all' : r.fields.join(','),
    createdtm: secondsText(r.createdMs),
    expiretm: secondsText(r.createdMs + RETENTION_MS),
    starttm: secondsText(r.startedMs),
    completedtm: secondsText(r.completedMs),
    datastarttm: String(r.dataStartS),
    dataendtm: String(r.dataEndS),
    aclass: 'currency',
    asset: 'all',
  };
}

/** `2024-03-01 12:00:05.1230`: the exchange's export time format (UTC). */
function exportTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}0`;
}

function buildArchive(ctx: SimContext, account: Account, r: Report, atMs: number): Uint8Array {
  const fields = r.fields ?? EXPORT_FIELDS[r.report];
  const columns = [...IDENTITY[r.report], ...fields];
  const inRange = (ms: number): boolean => {
    const s = Math.floor(ms / 1000);
    return s >= r.dataStartS && s <= r.dataEndS;
  };
  const rows: string[][] = [];
  if (r.report === 'trades') {
    for (const t of ctx.engine.trades(account)) {
      if (!inRange(t.timeMs)) continue;
      const values: Record<string, string> = {
        txid: t.id,
        pair: t.pair.id,
        type: t.side,
        ordertxid: t.ordertxid,
        time: exportTime(t.timeMs),
        ordertype: t.ordertype,
        price: toWire(t.price),
        cost: toWire(t.cost),
        fee: toWire(t.fee),
        vol: toWire(t.vol),
        margin: '0',
        misc: '',
        ledgers: t.ledgers.join(','),
      };
      rows.push(columns.map((c) => values[c] ?? ''));
    }
  } else {
    for (const e of account.wallet.ledger) {
      if (!inRange(e.timeMs)) continue;
      const values: Record<string, string> = {
        txid: e.id,
        refid: e.refid,
        time: exportTime(e.timeMs),
        type: e.type,
        subtype: e.subtype,
        aclass: 'currency',
        asset: e.asset,
        amount: toWire(e.amount),
        fee: toWire(e.fee),
        balance: toWire(e.balance),
        wallet: 'spot / main',
      };
      rows.push(columns.map((c) => values[c] ?? ''));
    }
  }
  const line =
    r.format === 'CSV'
      ? (cells: readonly string[]) => cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')
      : (cells: readonly string[]) => cells.map((c) => c.replace(/[\t\r\n]/g, ' ')).join('\t');
  const text = [columns, ...rows].map(line).join('\n') + '\n';
  const name = `${r.report}.${r.format.toLowerCase()}`;
  return zipSync({ [name]: [Buffer.from(text, 'utf8'), { mtime: new Date(atMs) }] });
}
