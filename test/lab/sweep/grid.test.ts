import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { builtInStrategies } from '../../../src/daemon/package-file.js';
import { loadSettings } from '../../../src/daemon/settings-file.js';
import { checkCombinations } from '../../../src/lab/sweep/combination-check.js';
import {
  applyOverrides,
  expandGrid,
  loadSweepFile,
  parseSweepFile,
  type OverridableSettings,
} from '../../../src/lab/sweep/index.js';

/** The paper config's two pairs as the sweep sees them. */
const SETTINGS: OverridableSettings = {
  pairs: [
    {
      pair: 'XBTUSD',
      strategy: { name: 'spread', options: { order_size: '0.01', min_spread_bps: 20 } },
    },
    { pair: 'ETHUSD', strategy: { name: 'avellaneda-stoikov', options: { order_size: '0.2' } } },
  ],
  market: { queue: { rule: 'linear' } },
};

function grid(text: object) {
  return expandGrid(parseSweepFile({ data: 'rec', ...text }));
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
}

async function checkRefusal(sweep: object): Promise<string> {
  const file = parseSweepFile({ data: 'rec', ...sweep });
  try {
    await checkCombinations(expandGrid(file), SETTINGS, file.pairs, builtInStrategies());
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
}

describe('sweep grid', () => {
  it('crosses every dimension in file order, the latency varying fastest', () => {
    const g = grid({
      pairs: ['XBTUSD'],
      grid: {
        variants: [
          { name: 'tight', strategy: 'spread', options: { min_spread_bps: 10 } },
          { name: 'as', strategy: 'avellaneda-stoikov' },
        ],
        options: { queue_value_bps: [0, 2] },
        fees: [{ maker: 0, taker: 0.4 }, { volume_usd: 1000000 }],
        queue_rule: ['power:2'],
        latency_ms: [5, 50],
      },
    });
    assert.deepEqual(
      g.dimensions.map((d) => [d.key, d.values]),
      [
        ['strategy', ['tight', 'as']],
        ['queue_value_bps', [0, 2]],
        ['fees', ['maker 0 %, taker 0.4 %', 'volume 1000000 USD']],
        ['queue_rule', ['power:2']],
        ['latency_ms', [5, 50]],
      ],
    );
    assert.equal(g.combinations.length, 16);
    assert.deepEqual(g.combinations.map((c) => c.id).slice(0, 3), ['001', '002', '003']);
    const [first, second, , fourth] = g.combinations;
    assert.deepEqual(first?.values, {
      strategy: 'tight',
      queue_value_bps: 0,
      fees: 'maker 0 %, taker 0.4 %',
      queue_rule: 'power:2',
      latency_ms: 5,
    });
    assert.deepEqual(first?.overrides, {
      pairs: ['XBTUSD'],
      strategy: { name: 'spread', options: { min_spread_bps: 10, queue_value_bps: 0 } },
      fees: { makerPct: 0, takerPct: 0.4 },
      queueRule: 'power:2',
      latencyMs: 5,
    });
    assert.equal(second?.overrides.latencyMs, 50);
    assert.deepEqual(fourth?.overrides.fees, { volumeUsd: 1000000 });
    assert.equal(g.combinations[8]?.overrides.strategy?.name, 'avellaneda-stoikov');
  });

  it('is one combination, the config as it is, without dimensions', () => {
    const g = grid({ grid: {} });
    assert.equal(g.combinations.length, 1);
    assert.deepEqual(g.combinations[0]?.overrides, {});
  });

  it('names the sweep file field that is wrong', () => {
    const cases: [object, string][] = [
      [
        { grid: { latency_ms: [5, 'slow'] } },
        'sweep.grid.latency_ms[1]: expected number, got "slow"',
      ],
      [
        { grid: { fees: [{ maker: 0 }, {}] } },
        'sweep.grid.fees[1]: expected object to have at least 1 properties, got {}',
      ],
      [
        { grid: { fees: [{ makers: 0 }] } },
        'sweep.grid.fees[0].makers: unknown option; did you mean maker?',
      ],
      [
        { grid: { queue_rule: ['linear', 'cube'] } },
        'sweep.grid.queue_rule[1]: "cube" is not a queue rule',
      ],
      [
        { grid: { options: { levels: [] } } },
        'sweep.grid.options.levels: expected array length to be greater or equal to 1',
      ],
      [{ grid: {}, data: 7 }, 'sweep.data: must be a recording folder, or { simulated'],
      [{ grid: {}, split: 1 }, 'sweep.split: expected number to be less than 1'],
      [{ grid: {}, rank_by: 'fills' }, 'sweep.rank_by: must be one of pnl, pnl_bps'],
      [
        { grid: { strategy: ['spread'], variants: [{ strategy: 'spread' }] } },
        'sweep.grid: give strategy or variants, not both',
      ],
      [
        { grid: { variants: [{ strategy: 'spread' }, { strategy: 'spread' }] } },
        'sweep.grid.variants[1].name: spread names two variants',
      ],
      [
        { grid: { options: { fees: [1] } } },
        'sweep.grid.options.fees: an option cannot be named fees',
      ],
    ];
    for (const [sweep, message] of cases) {
      const got = refusal(() => grid(sweep));
      assert.ok(got.startsWith(message), `${JSON.stringify(sweep)}: ${got}`);
    }
  });

  it("refuses options a strategy's schema refuses, naming where in the grid they came from", async () => {
    const bad = await checkRefusal({
      pairs: ['XBTUSD'],
      grid: { strategy: ['spread'], options: { min_spread_bps: [10, 20, 'wide'] } },
    });
    assert.equal(
      bad,
      'sweep.grid.options.min_spread_bps[2]: expected number, got "wide" (spread on XBTUSD, run 003)',
    );
    const foreign = await checkRefusal({
      pairs: ['XBTUSD'],
      grid: {
        variants: [
          { strategy: 'spread', options: { reference: 'mid' } },
          { strategy: 'avellaneda-stoikov', options: { reference: 'mid' } },
        ],
      },
    });
    assert.match(
      foreign,
      /^sweep\.grid\.variants\[1\]\.options\.reference: unknown option; .*\(avellaneda-stoikov on XBTUSD, run 002\)$/,
    );
    const unknown = await checkRefusal({ grid: { strategy: ['spread', 'no-such-strategy'] } });
    assert.match(unknown, /^sweep\.grid\.strategy\[1\]: strategy "no-such-strategy".*not found/);
    const pair = await checkRefusal({ pairs: ['XBTUSD', 'SOLUSD'], grid: {} });
    assert.match(
      pair,
      /^sweep\.pairs\[1\]: SOLUSD is not a pair of the config \(it has XBTUSD, ETHUSD\)/,
    );
    assert.equal(
      await checkRefusal({
        grid: { strategy: ['spread', 'avellaneda-stoikov'], options: { queue_value_bps: [0, 2] } },
      }),
      'accepted',
    );
  });

  it("lays options over the pair's own when the strategy stays, alone when it changes", () => {
    const same = applyOverrides(SETTINGS, {
      pairs: ['XXBTZUSD'],
      strategy: { options: { min_spread_bps: 30 } },
      queueRule: 'log',
    });
    assert.deepEqual(same.pairs, [
      {
        pair: 'XBTUSD',
        strategy: { name: 'spread', options: { order_size: '0.01', min_spread_bps: 30 } },
      },
    ]);
    assert.equal(same.market.queue.rule, 'log');
    const other = applyOverrides(SETTINGS, {
      strategy: { name: 'spread', options: { levels: 2 } },
    });
    assert.deepEqual(
      other.pairs.map((p) => p.strategy),
      [
        { name: 'spread', options: { order_size: '0.01', min_spread_bps: 20, levels: 2 } },
        { name: 'spread', options: { levels: 2 } },
      ],
    );
    assert.equal(other.market.queue.rule, 'linear');
  });

  it('reads a sweep file, its paths relative to its folder', () => {
    const dir = mkdtempSync(join(tmpdir(), 'makerd-sweep-file-'));
    try {
      const path = join(dir, 'sweep.yaml');
      writeFileSync(path, 'config: bot.yaml\ndata: rec\ngrid:\n  latency_ms: [5]\n');
      const loaded = loadSweepFile(path);
      assert.equal(loaded.config, join(dir, 'bot.yaml'));
      assert.equal(loaded.dataDir, join(dir, 'rec'));
      assert.equal(loaded.sweep.top, 5);
      assert.equal(loaded.sweep.rank_by, 'pnl');
      writeFileSync(path, 'data: { simulated: { minutes: 10 } }\ngrid: {}\n');
      const simulated = loadSweepFile(path);
      assert.equal(simulated.dataDir, undefined);
      assert.deepEqual(simulated.sweep.data, { simulated: { minutes: 10, seed: 7 } });
      writeFileSync(path, 'grid: [1\n');
      assert.match(
        refusal(() => loadSweepFile(path)),
        /^--sweep: .*sweep\.yaml is not valid YAML/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes the closing sweep files of config/sweeps', async () => {
    const file = (name: string): string =>
      new URL(`../../../config/sweeps/${name}`, import.meta.url).pathname;
    const all = loadSweepFile(file('queue-refresh.yaml'));
    assert.equal(expandGrid(all.sweep).combinations.length, 12);
    const builtIns = loadSweepFile(file('queue-refresh-builtins.yaml'));
    const g = expandGrid(builtIns.sweep);
    assert.equal(g.combinations.length, 8);
    assert.deepEqual(builtIns.sweep.data, { simulated: { minutes: 60, seed: 7 } });
    const { settings } = loadSettings(builtIns.config);
    await checkCombinations(g, settings, builtIns.sweep.pairs, builtInStrategies());
  });
});
