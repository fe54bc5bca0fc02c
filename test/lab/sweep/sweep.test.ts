/**
 * `makerd backtest --sweep` end to end: BullMQ jobs on the test's Redis, taken by worker processes
 * (`makerd backtest worker`) started by the sweep or on their own, results written and Redis left
 * clean.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { runSweepCommand, runSweepWorkerCommand } from '../../../src/cli/sweep-command.js';
import { dec } from '../../../src/core/index.js';
import type { RunFigures, SweepResults } from '../../../src/lab/sweep/index.js';
import { SweepRegistry } from '../../../src/lab/sweep/sweep-registry.js';
import type { BacktestReport } from '../../../src/lab/report/index.js';
import { REDIS_URL } from '../../support/redis.js';
import { makerd, stop } from '../../support/spawn.js';
import { until } from '../../support/until.js';
import { recordXbt, sink, writePaperConfig } from './sweep-fixture.js';

const FEES = [{ volume_usd: 0 }, { maker: 0, taker: 0.4 }, { volume_usd: 1000000 }];

function figures(results: SweepResults, id: string, phase = 'full' as const): RunFigures {
  const run = results.rows.find((r) => r.id === id)?.runs[phase];
  assert.equal(run?.status, 'ok', `run ${id} ${phase}: ${JSON.stringify(run)}`);
  return (run as { figures: RunFigures }).figures;
}

describe('sweep', () => {
  let dir: string;
  let config: string;
  let prefix: string;
  let redis: Redis;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-sweep-'));
    await recordXbt(join(dir, 'rec'));
    ({ file: config, prefix } = writePaperConfig(dir));
    redis = new Redis(REDIS_URL);
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
    redis.disconnect();
  });

  /** A sweep file beside the recording and config (YAML takes JSON). */
  function sweepFile(name: string, sweep: object): string {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, JSON.stringify({ config: 'bot.yaml', data: 'rec', ...sweep }));
    return path;
  }

  async function keysLeft(): Promise<string[]> {
    return redis.keys(`${prefix}:*`);
  }

  it('runs every combination with --jobs 1: sweep.csv, .json, .html and each report', async () => {
    const out = sink();
    const outDir = join(dir, 'fees');
    const { results, files } = await runSweepCommand(
      { sweep: sweepFile('fees', { grid: { fees: FEES } }), out: outDir, jobs: '1' },
      { out, err: sink() },
      new AbortController().signal,
    );
    assert.deepEqual(
      results.rows.map((r) => r.runs.full?.status),
      ['ok', 'ok', 'ok'],
    );
    const csv = readFileSync(files.csv, 'utf8').trim().split('\r\n');
    assert.equal(csv.length, 4, 'a header and a line per combination');
    assert.match(csv[0] ?? '', /^rank,id,fees,status,error,pnl_total,pnl_bps,.*,XBTUSD\.pnl_fees,/);
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as SweepResults;
    assert.deepEqual(json.rows.map((r) => r.id).sort(), ['001', '002', '003']);
    const html = readFileSync(files.html, 'utf8');
    assert.equal(html.match(/<tr data-id="/g)?.length, 3);
    assert.doesNotMatch(html, /data-heatmap/, 'one dimension varies: no heatmap');
    for (const id of ['001', '002', '003']) {
      const f = figures(results, id);
      const report = JSON.parse(
        readFileSync(join(outDir, 'runs', id, 'report.json'), 'utf8'),
      ) as BacktestReport;
      assert.equal(f.pairs.XBTUSD?.pnl_total, report.pairs[0]?.summary.pnl.total);
      assert.equal(f.report, `runs/${id}/report.html`);
      assert.ok(existsSync(join(outDir, f.report)));
      assert.equal(f.rate_limit_refusals, 0);
    }
    const zero = figures(results, '002').pairs.XBTUSD;
    assert.ok((zero?.fills ?? 0) > 0, 'the bot traded at a 0 % maker fee');
    assert.equal(zero?.pnl_fees, '0');
    const starter = figures(results, '001').pairs.XBTUSD;
    if (starter !== undefined && starter.fills > 0) {
      // The starter maker rung (0.25 %) until the key's own volume reaches 10,000 USD, then 0.2 %.
      const fills = readFileSync(join(outDir, 'runs', '001', 'fills.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { tMs: number; price: string; volume: string })
        .sort((a, b) => a.tMs - b.tMs);
      let traded = dec(0);
      let fees = dec(0);
      for (const f of fills) {
        const notional = dec(f.price).times(f.volume);
        fees = fees.plus(notional.times(traded.lt(10_000) ? '0.0025' : '0.002'));
        traded = traded.plus(notional);
      }
      assert.ok(dec(starter.pnl_fees).eq(fees), `${starter.pnl_fees} against ${fees.toFixed()}`);
    }
    assert.equal(new Set(results.rows.map((r) => figures(results, r.id).worker)).size, 1);
    assert.match(out.text(), /^rank\s+id\s+fees\s+pnl\s+bps\s+fills\s+refusals$/m);
    assert.match(out.text(), /^3 combination\(s\) in .* with 1 local worker\(s\)$/m);
    assert.deepEqual(await keysLeft(), []);
  });

  it('lists a run that fails with its error, and runs the others', async () => {
    const broken = new URL('./fixtures/cannot-start.ts', import.meta.url).pathname;
    const out = sink();
    const { results } = await runSweepCommand(
      {
        sweep: sweepFile('broken', {
          grid: { variants: [{ name: 'configured' }, { name: 'broken', strategy: broken }] },
        }),
        out: join(dir, 'broken'),
        jobs: '1',
      },
      { out, err: sink() },
      new AbortController().signal,
    );
    const [ok, failed] = results.rows;
    assert.equal(ok?.runs.full?.status, 'ok');
    assert.equal(ok?.rank, 1);
    assert.equal(failed?.id, '002');
    assert.equal(failed?.rank, undefined, 'a failed run is not ranked');
    assert.match(
      failed?.runs.full?.status === 'failed' ? failed.runs.full.error : '',
      /this strategy cannot start/,
    );
    assert.match(out.text(), /^run 002 failed: full: .*this strategy cannot start/m);
  });

  it('a worker started on its own joins: two workers share the runs', async (t) => {
    const workers = [0, 1].map(() => makerd(['backtest', 'worker', '--config', config]));
    t.after(() => Promise.all(workers.map((w) => stop(w.child))));
    const waiting = `waiting for a sweep under ${prefix}`;
    await until(
      'both workers waiting',
      () => workers.every((w) => w.lines.some((l) => l.msg?.endsWith(waiting) === true)),
      30_000,
    );
    const { results } = await runSweepCommand(
      {
        sweep: sweepFile('shared', {
          grid: { fees: FEES.slice(0, 2), latency_ms: [5, 20] },
        }),
        out: join(dir, 'shared'),
        jobs: '0',
      },
      { out: sink(), err: sink() },
      new AbortController().signal,
    );
    const by = results.rows.map((r) => figures(results, r.id).worker);
    assert.equal(by.length, 4);
    assert.equal(new Set(by).size, 2, `runs by ${by.join(', ')}`);
    assert.match(
      readFileSync(join(dir, 'shared', 'sweep.html'), 'utf8'),
      /data-heatmap="pnl_total"/,
    );
    for (const w of workers) {
      assert.equal(await stop(w.child), 0, w.stderr());
      assert.ok(w.lines.some((l) => /joined sweep [0-9a-f]{8}$/.test(l.msg ?? '')));
    }
    assert.deepEqual(await keysLeft(), []);
  });

  it('--split ranks on the first part and replays the best on the rest', async () => {
    const out = sink();
    const outDir = join(dir, 'split');
    const { results } = await runSweepCommand(
      {
        sweep: sweepFile('split', { grid: { fees: FEES } }),
        out: outDir,
        jobs: '1',
        split: '0.5',
        top: '2',
      },
      { out, err: sink() },
      new AbortController().signal,
    );
    const splitMs = results.splitMs ?? NaN;
    assert.ok(splitMs > results.fromMs && splitMs < results.toMs);
    assert.ok(results.rows.every((r) => r.runs.in_sample?.status === 'ok'));
    const outside = results.rows.filter((r) => r.runs.out_of_sample !== undefined);
    assert.deepEqual(
      outside.map((r) => r.rank),
      [1, 2],
      'the two best in sample, and only they, ran out of sample',
    );
    for (const row of outside) {
      const inside = JSON.parse(
        readFileSync(join(outDir, 'runs', row.id, 'in-sample', 'report.json'), 'utf8'),
      ) as BacktestReport;
      const rest = JSON.parse(
        readFileSync(join(outDir, 'runs', row.id, 'out-of-sample', 'report.json'), 'utf8'),
      ) as BacktestReport;
      assert.ok(inside.run.toMs < splitMs, 'in sample ends before the split');
      assert.ok(rest.run.fromMs >= splitMs, 'out of sample starts at the split');
      assert.ok(row.outOfSampleRank === 1 || row.outOfSampleRank === 2);
    }
    const header = readFileSync(join(outDir, 'sweep.csv'), 'utf8').split('\r\n')[0] ?? '';
    assert.match(header, /,in_sample\.pnl_total,.*,out_of_sample\.pnl_total,/);
    assert.match(out.text(), /in-sample pnl\s.*out-of-sample pnl\s.*out-of-sample rank$/m);
  });

  it('stops at the signal: the run in progress handed back, Redis cleaned, what finished kept', async () => {
    const halt = new AbortController();
    const err = sink();
    const outDir = join(dir, 'stopped');
    const sweeping = runSweepCommand(
      {
        sweep: sweepFile('stopped', { grid: { fees: FEES, latency_ms: [5, 20] } }),
        out: outDir,
        jobs: '1',
      },
      { out: sink(), err },
      halt.signal,
    );
    // The first run's report folder: the worker is replaying.
    await until('a run started', () => existsSync(join(outDir, 'runs')), 60_000);
    halt.abort();
    await assert.rejects(sweeping, {
      code: 'SWEEP_STOPPED',
      message: /^sweep stopped: \d of 6 run\(s\) finished/,
    });
    const json = JSON.parse(readFileSync(join(outDir, 'sweep.json'), 'utf8')) as SweepResults;
    assert.equal(json.complete, false);
    assert.ok(json.rows.some((r) => r.runs.full?.status === 'not run'));
    assert.deepEqual(await keysLeft(), [], "the queue, the marker and the runs' keys are gone");
  });

  it('a worker refuses, in one line, a sweep whose recording is not on its machine', async () => {
    const registry = new SweepRegistry(redis, prefix);
    await registry.open(
      { id: 'elsewhere', data: '/nowhere/rec', dir, host: 'other:1', startedMs: Date.now() },
      10_000,
    );
    try {
      await assert.rejects(
        runSweepWorkerCommand(
          { config, sweepId: 'elsewhere' },
          { out: sink(), err: sink() },
          new AbortController().signal,
        ),
        {
          message:
            '--sweep-id: the recording /nowhere/rec is not on this machine: every worker reads it at the same path (a shared folder)',
        },
      );
    } finally {
      await registry.close('elsewhere');
    }
  });
});
