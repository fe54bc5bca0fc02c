import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { runBacktestCommand } from '../../src/cli/backtest-command.js';
import { paperConfigText } from '../support/paper-config.js';
import { REDIS_URL } from '../support/redis.js';
import { makerd } from '../support/spawn.js';
import { until } from '../support/until.js';
import { synthesiseRecording, writeRecording } from '../lab/replay/synth-recording.js';

const START_MS = Date.UTC(2026, 10, 1);
/** A loopback port nothing listens on (the discard port is never served here). */
const NO_REDIS = 'redis://127.0.0.1:9';

function sink(): NodeJS.WriteStream {
  return new PassThrough() as unknown as NodeJS.WriteStream;
}

async function exitOf(child: ReturnType<typeof makerd>['child']): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

describe('makerd backtest: flags, paths, Redis and Ctrl-C', () => {
  let dir: string;
  let config: string;
  let prefix: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'makerd-backtest-cli-'));
    // Long enough that Ctrl-C comes mid-replay.
    const rows = await synthesiseRecording({
      pairs: ['XBTUSD'],
      startMs: START_MS,
      durationMs: 20 * 60_000,
    });
    writeRecording(join(dir, 'rec'), rows);
    const written = paperConfigText({ pair: 'XBTUSD' });
    prefix = written.prefix;
    config = join(dir, 'paper.yaml');
    writeFileSync(config, written.text);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a --stores it does not know, naming the flag', async () => {
    const run = makerd([
      'backtest',
      '--stores',
      'disk',
      '--config',
      config,
      '--data',
      join(dir, 'rec'),
    ]);
    assert.equal(await exitOf(run.child), 2, run.stderr());
    assert.equal(run.stderr(), 'makerd: --stores: must be memory or redis, got "disk"\n');
  });

  it('refuses an --out holding an earlier report unless --force', async () => {
    const out = join(dir, 'earlier');
    mkdirSync(out);
    writeFileSync(join(out, 'report.json'), '{}');
    await assert.rejects(
      runBacktestCommand({ data: join(dir, 'rec'), config, out }, { out: sink(), err: sink() }),
      {
        message: `--out: ${out} holds an earlier report (report.json); give --force to replace it, or another folder`,
      },
    );
  });

  it('refuses an --out it cannot create, at once, naming the flag', async () => {
    await assert.rejects(
      runBacktestCommand(
        { data: join(dir, 'rec'), config, out: '/proc/x/report' },
        { out: sink(), err: sink() },
      ),
      { message: '--out: /proc/x/report: ENOENT' },
    );
  });

  it('names --data when its folder is missing', async () => {
    const missing = join(dir, 'no-such-recording');
    await assert.rejects(
      runBacktestCommand({ data: missing, config }, { out: sink(), err: sink() }),
      { message: `--data: ${missing}: no such folder` },
    );
  });

  it('prints one line naming the flag for a bad path or value, no stack, exit 2', async () => {
    const cases: [string[], string][] = [
      [['--data', join(dir, 'nope')], `makerd: --data: ${join(dir, 'nope')}: no such folder\n`],
      [
        ['--data', join(dir, 'rec'), '--max-data-problems', 'many'],
        'makerd: --max-data-problems: must be a count >= 0, got many\n',
      ],
      [['--data', join(dir, 'rec'), '--out', '/proc/x'], 'makerd: --out: /proc/x: ENOENT\n'],
    ];
    for (const [args, line] of cases) {
      const run = makerd(['backtest', '--config', config, ...args]);
      assert.equal(await exitOf(run.child), 2, run.stderr());
      assert.equal(run.stderr(), line);
    }
  });

  it('needs no Redis with its state in memory (the default)', async () => {
    const out = join(dir, 'in-memory');
    const run = makerd(['backtest', '--config', config, '--data', join(dir, 'rec'), '--out', out], {
      MAKERD_REDIS_URL: NO_REDIS,
      MAKERD_REDIS_SERVER: join(dir, 'no-redis-server'),
    });
    assert.equal(await exitOf(run.child), 0, run.stderr());
    assert.ok(existsSync(join(out, 'report.json')), 'the report is written');
  });

  it('with --stores redis, says in one line when it can neither find nor start Redis', async () => {
    const run = makerd(
      [
        'backtest',
        '--stores',
        'redis',
        '--config',
        config,
        '--data',
        join(dir, 'rec'),
        '--out',
        join(dir, 'no-redis'),
      ],
      { MAKERD_REDIS_URL: NO_REDIS, MAKERD_REDIS_SERVER: join(dir, 'no-redis-server') },
    );
    assert.equal(await exitOf(run.child), 1, run.stderr());
    assert.equal(
      run.stderr(),
      `makerd: no Redis answers at ${NO_REDIS} and ${join(dir, 'no-redis-server')} is not installed: install it (Debian or Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or set REDIS_URL to a Redis that runs\n`,
    );
  });

  it('stops at Ctrl-C with one line and leaves no key of the run in Redis', async () => {
    const run = makerd([
      'backtest',
      '--stores',
      'redis',
      '--config',
      config,
      '--data',
      join(dir, 'rec'),
      '--out',
      join(dir, 'interrupted'),
    ]);
    // The progress line says the replay runs (its keys exist by then).
    await until('a progress line', () => /x real time/.test(run.stderr()), 60_000);
    const redis = new Redis(REDIS_URL);
    try {
      assert.ok((await redis.keys(`${prefix}:*`)).length > 0, 'the run keeps its state in Redis');
      run.child.kill('SIGINT');
      assert.equal(await exitOf(run.child), 1, run.stderr());
      assert.match(
        run.stderr(),
        /^makerd: backtest: interrupted; no report written, the run's Redis keys deleted$/m,
      );
      assert.doesNotMatch(run.stderr(), /\n\s+at /, 'no stack trace');
      assert.deepEqual(await redis.keys(`${prefix}:*`), []);
    } finally {
      redis.disconnect();
    }
  });
});
