/**
 * Issue #33 item 6: live vs replay of the same session. A paper run trades the simulator (its
 * background flow on, a fixed seed, real time) while recording; the recording is then replayed
 * by `makerd backtest` with the same config and the same account, and both sides are counted from
 * the exchange's ledger (TradesHistory live, the replay's engine) over the replayed window.
 *
 * FIDELITY_SEED and FIDELITY_SECONDS pick the run (docs/backtest.md, "Fidelity", has the figures
 * measured over several seeds); FIDELITY_OUT keeps the report there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { runBacktestCommand } from '../../src/cli/backtest-command.js';
import { Decimal, type Side } from '../../src/core/index.js';
import { SpotClient } from '../../src/exchange/index.js';
import {
  FIDELITY_NOTE,
  differencePct,
  fidelityRow,
  type LedgerTrade,
} from '../../src/lab/fidelity.js';
import { startPaperRun, type PaperRun } from '../support/paper-run.js';
import { stop } from '../support/spawn.js';
import { until } from '../support/until.js';

const SEED = Number(process.env.FIDELITY_SEED ?? 41);
const SESSION_MS = Number(process.env.FIDELITY_SECONDS ?? 150) * 1000;
/** What the report aims for (issue #33): the page marks each figure outside it. */
const AIM_PCT = 10;
/**
 * What the test asserts, for the session's two pairs together (docs/backtest.md, "Fidelity"):
 * over seeds 41-43 the totals differed by +5, -12 and +3 % in fills and volume and up to 45 % in
 * PnL, which is mostly fees of about 40 trades. Since every trade is recorded, five 100 s runs of
 * seed 41 gave -34 (under the whole suite's load), -14, +16, +7 and -12 % in fills: the session
 * is 150 s, so that a few trades more or less stay inside the tolerance. One pair alone trades
 * 5 to 40 times, so its own difference is mostly which few trades met our order: it is printed
 * and in the report, not asserted.
 */
const TOLERANCE = { fills: 30, volume: 30, pnl: 60 };

interface HistoryRow {
  readonly pair: string;
  readonly time: number;
  readonly type: Side;
  readonly price: string;
  readonly vol: string;
  readonly fee: string;
}

/** Every trade of the run's key, from the simulator's TradesHistory (50 a page). */
async function liveLedger(run: PaperRun): Promise<Map<string, LedgerTrade[]>> {
  const client = new SpotClient({
    baseUrl: run.simUrl,
    credentials: { apiKey: run.apiKey, apiSecret: run.apiSecret },
    tier: 'starter',
  });
  const byPair = new Map<string, LedgerTrade[]>();
  for (let ofs = 0; ;) {
    const page = (await client.tradesHistory({ ofs })).result as {
      trades: Record<string, HistoryRow>;
      count: number;
    };
    const rows = Object.values(page.trades);
    for (const t of rows) {
      const list = byPair.get(t.pair) ?? [];
      list.push({
        timeMs: Math.round(t.time * 1000),
        side: t.type,
        price: new Decimal(t.price),
        volume: new Decimal(t.vol),
        fee: new Decimal(t.fee),
      });
      byPair.set(t.pair, list);
    }
    ofs += rows.length;
    if (rows.length === 0 || ofs >= page.count) return byPair;
  }
}

function sink(): NodeJS.WriteStream & { text(): string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return Object.assign(stream as unknown as NodeJS.WriteStream, { text: () => text });
}

void describe(`live vs replay of a ${SESSION_MS / 1000} s paper session (seed ${SEED})`, () => {
  let dir: string;
  let run: PaperRun;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-fidelity-'));
    run = await startPaperRun(SEED, { record: { dir: join(dir, 'rec') } });
  });
  after(async () => {
    await run.close();
    if (process.env.FIDELITY_OUT === undefined) rmSync(dir, { recursive: true, force: true });
  });

  void it('replays the recording to the live fills, volume and PnL within the tolerance', async () => {
    const { bot } = await run.start();
    const startedMs = Date.now();
    await until(
      `${SESSION_MS / 1000} s of trading`,
      () => Promise.resolve(Date.now() - startedMs >= SESSION_MS || undefined),
      SESSION_MS + 10_000,
      1_000,
    );
    await stop(bot.child);
    const live = await liveLedger(run);

    // The same bot and account in the replay: the live config, its key as a simulator account.
    const liveConfig = parse(readFileSync(run.config, 'utf8')) as Record<string, unknown>;
    const simFile = join(dir, 'replay-sim.yaml');
    writeFileSync(
      simFile,
      stringify({
        accounts: [
          {
            key: run.apiKey,
            secret: run.apiSecret,
            tier: 'starter',
            balances: { ZUSD: '100000', XXBT: '2', XETH: '30' },
            nonce_window: 5000,
          },
        ],
      }),
    );
    const replayConfig = join(dir, 'replay.yaml');
    writeFileSync(
      replayConfig,
      stringify({
        ...liveConfig,
        exchange: {
          ...(liveConfig.exchange as object),
          credentials: { from: 'simulator', account: run.apiKey, sim_config: simFile },
        },
        record: false,
      }),
    );
    const outDir = process.env.FIDELITY_OUT ?? join(dir, 'report');
    const result = await runBacktestCommand(
      {
        data: join(dir, 'rec'),
        config: replayConfig,
        out: outDir,
        fidelity: (replay) => ({
          live: `paper session, seed ${SEED}, ${SESSION_MS / 1000} s`,
          tolerancePct: AIM_PCT,
          note: FIDELITY_NOTE,
          rows: replay.pairs.map((p) =>
            fidelityRow(p.pair, liveOf(live, p.pair), p.ledger, {
              fromMs: replay.startMs,
              toMs: replay.endMs,
              mark: new Decimal(p.mark ?? '0'),
            }),
          ),
        }),
      },
      { out: sink(), err: sink() },
    );
    const rows = result.report.fidelity?.rows ?? [];
    const lines = rows.map(
      (r) =>
        `${r.pair}: fills ${r.live.fills} / ${r.replay.fills} ` +
        `(${differencePct(r.live.fills, r.replay.fills).toFixed(1)}%), ` +
        `volume ${r.live.volume} / ${r.replay.volume} ` +
        `(${differencePct(r.live.volume, r.replay.volume).toFixed(1)}%), ` +
        `pnl ${r.live.realizedPnl} / ${r.replay.realizedPnl} ` +
        `(${differencePct(r.live.realizedPnl, r.replay.realizedPnl).toFixed(1)}%)`,
    );
    // The figures the tolerance was set from: one line per pair, live / replay.
    console.log(`fidelity seed ${SEED}:\n  ${lines.join('\n  ')}`);
    assert.equal(rows.length, 2);
    for (const r of rows) assert.ok(r.live.fills > 0, `${r.pair}: the live session traded`);
    const total = (side: 'live' | 'replay', figure: 'fills' | 'volume' | 'realizedPnl') =>
      rows.reduce((sum, r) => sum.plus(String(r[side][figure])), new Decimal(0)).toFixed();
    for (const [figure, tolerance] of [
      ['fills', TOLERANCE.fills],
      ['volume', TOLERANCE.volume],
      ['realizedPnl', TOLERANCE.pnl],
    ] as const) {
      const diff = differencePct(total('live', figure), total('replay', figure));
      assert.ok(Math.abs(diff) <= tolerance, `both pairs' ${figure}: ${lines.join('; ')}`);
    }
  });
});

/** TradesHistory keys pairs by id (XXBTZUSD); the report by altname (XBTUSD). */
function liveOf(live: Map<string, LedgerTrade[]>, altname: string): LedgerTrade[] {
  const ids: Record<string, string> = { XBTUSD: 'XXBTZUSD', ETHUSD: 'XETHZUSD' };
  return live.get(ids[altname] ?? altname) ?? [];
}
