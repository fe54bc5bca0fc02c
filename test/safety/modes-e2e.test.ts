import type { RedisIntentBus } from '../../src/bus/index.js';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { parseBotConfig } from '../../src/daemon/bot-config.js';
import { startExecutorRole, type ExecutorRole } from '../../src/daemon/executor-role.js';
import { startRunnerRole, type RunnerRole } from '../../src/daemon/runner-role.js';
import type { MarketSnapshot } from '../../src/core/index.js';
import { silentLogger } from '../../src/obs/index.js';
import type { TickReport } from '../../src/runner/runner.js';
import { startTestSim, type KeyPair, type TestSim } from '../support/sim.js';
import { until, type SimStateView } from '../support/until.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const STRATEGIES = join(import.meta.dirname, '..', '..', 'strategies');
const BTC = 'XXBTZUSD';

/**
 * The exchange's modes end to end: the runner reads SystemStatus, the executor plans under the
 * same mode, and the simulator refuses what a mode forbids, so a refusal would show it was not
 * honoured.
 */
describe('exchange modes, runner and executor on the simulator', () => {
  let sim: TestSim;
  let key: KeyPair;
  let runner: RunnerRole;
  let executor: ExecutorRole;
  const ticks: TickReport[] = [];
  const prefix = `test-modes-${randomBytes(4).toString('hex')}`;

  before(async () => {
    sim = await startTestSim({ config: { background: { enabled: true, seed: 11 } } });
    key = sim.addAccount({ tier: 'pro', nonceWindow: 10_000 });
    const settings = parseBotConfig(
      {
        exchange: { url: sim.url, tier: 'pro', credentials: { from: 'env' } },
        redis: { url: REDIS_URL, prefix },
        // Not post-only by itself: in post_only mode the runner must make it so.
        pairs: [
          {
            pair: 'XBTUSD',
            strategy: {
              name: 'spread',
              options: { levels: 1, post_only: false, min_spread_bps: 60 },
            },
          },
        ],
        market: {
          polls: {
            depth: { interval_ms: 250 },
            open_orders: { interval_ms: 1000 },
            system_status: { interval_ms: 250 },
          },
        },
        runner: { republish_after_ms: 1_000, price_tolerance_bps: 1 },
      },
      {},
    );
    const env = { MAKERD_API_KEY: key.apiKey, MAKERD_API_SECRET: key.apiSecret };
    const parts = { settings, log: silentLogger(), env };
    executor = await startExecutorRole({ ...parts, registry: new Registry(), owner: 'test' });
    runner = await startRunnerRole({
      ...parts,
      registry: new Registry(),
      strategiesDir: STRATEGIES,
    });
    runner.runner.onTick((report) => ticks.push(report));
  });

  after(async () => {
    await runner?.stop();
    await executor?.stop();
    await (runner?.bus as RedisIntentBus | undefined)
      ?.queueFor(BTC)
      .obliterate({ force: true })
      .catch(() => undefined);
    await sim?.close();
  });

  const state = async (): Promise<SimStateView> =>
    (await sim.admin('GET', '/_sim/state')).body as SimStateView;
  const ours = async () => (await state()).open_orders.filter((o) => o.key === key.apiKey);
  /** Waits until an order of ours appears that was not open before. */
  const newOrder = async (since: ReadonlySet<string>) =>
    until('a new order of ours', async () => (await ours()).find((o) => !since.has(o.txid)));

  /** Our first order cancelled behind the bot's back: its slot wants a new order. */
  const knockOut = async (): Promise<string> => {
    const [first] = await ours();
    assert.ok(first, 'an order of ours to knock out');
    await sim.client({ key }).cancelOrder({ txid: first.txid });
    return first.txid;
  };
  const refusals = async (): Promise<number> =>
    Object.entries((await state()).rejections)
      .filter(([k]) => k.startsWith('EService'))
      .reduce((n, [, v]) => n + v, 0);
  /** Nothing on its way to the exchange: no intent in the register, no job for the pair. */
  const quiet = () =>
    until('nothing in flight', async () => {
      if ((await runner.bus.pending(BTC)).length > 0) return undefined;
      const jobs = await (runner.bus as RedisIntentBus)
        .queueFor(BTC)
        .getJobCounts('active', 'waiting', 'prioritized', 'delayed');
      return Object.values(jobs).every((n) => n === 0) ? true : undefined;
    });
  /** The runner's first tick on a snapshot of which `seen` holds (polled from its feed). */
  const tickOn = async (
    what: string,
    seen: (s: MarketSnapshot) => boolean,
  ): Promise<TickReport> => {
    const seq = await until(what, () => {
      const snapshot = runner.feed.snapshot(BTC);
      return seen(snapshot) ? snapshot.seq : undefined;
    });
    return until(`a tick once ${what}`, () => ticks.find((r) => r.snapshotSeq >= seq));
  };
  /** The mode, seen by the runner; what was in flight before it saw it has landed. */
  const switchTo = async (mode: string): Promise<number> => {
    await sim.admin('POST', '/_sim/status', { status: mode });
    await until(`the runner in ${mode}`, () =>
      Promise.resolve(runner.feed.snapshot(BTC).mode === mode ? true : undefined),
    );
    await quiet();
    return refusals();
  };

  it('post_only: a new placement goes post-only and is not refused', async (t) => {
    await until('our quotes on the book', async () =>
      (await ours()).length === 2 ? true : undefined,
    );
    const refusedBefore = await switchTo('post_only');
    t.diagnostic(`refused while the runner had not seen the mode yet: ${refusedBefore}`);
    const before = new Set((await ours()).map((o) => o.txid));
    await knockOut();
    const placed = await newOrder(before);
    // As the exchange reports it to the key.
    const { result } = await sim.client({ key }).openOrders();
    assert.match(String(result.open[placed.txid]?.oflags), /post/);
    assert.equal(await refusals(), refusedBefore, 'nothing refused once the mode was known');
  });

  it('cancel_only and maintenance: nothing new is sent; online again: the slot is placed', async () => {
    for (const mode of ['cancel_only', 'maintenance'] as const) {
      const refusedBefore = await switchTo(mode);
      const before = new Set((await ours()).map((o) => o.txid));
      if (mode === 'cancel_only') {
        const gone = await knockOut();
        const tick = await tickOn('the runner sees the slot empty', (s) =>
          s.openOrders.every((o) => o.txid !== gone),
        );
        assert.ok(tick.suppressedByMode > 0, 'the add for the empty slot held back by the mode');
      } else {
        const tick = await tickOn('the runner in maintenance', (s) => s.mode === mode);
        assert.equal(tick.outcome, 'idle');
      }
      await quiet();
      const added = (await ours()).filter((o) => !before.has(o.txid));
      assert.deepEqual(added, [], `no new order in ${mode}`);
      assert.equal(
        await refusals(),
        refusedBefore,
        `nothing sent for the exchange to refuse in ${mode}`,
      );
    }
    const before = new Set((await ours()).map((o) => o.txid));
    await switchTo('online');
    await newOrder(before);
    // The two slots may go in separate calls: wait for the second rather than race it.
    await until('both quotes back', async () => ((await ours()).length === 2 ? true : undefined));
  });
});
