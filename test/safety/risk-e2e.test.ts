import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { ManualClock, parseWithSchema } from '../../src/core/index.js';
import type { Executor } from '../../src/executor/index.js';
import { trackerRiskSource } from '../../src/daemon/risk-source.js';
import { RedisOrderTracker } from '../../src/orders/index.js';
import { Supervisor, SupervisorConfig, SupervisorMetrics } from '../../src/safety/index.js';
import { startExecHarness, until, type ExecHarness } from '../executor/harness.js';
import { logCollector, type LogEntry } from './log-collector.js';

const BTC = 'XXBTZUSD';

void describe('Risk limits on the simulator', () => {
  let h: ExecHarness;
  let executor: Executor;
  let supervisor: Supervisor;
  const registry = new Registry();
  const logs: LogEntry[] = [];
  /** The supervisor's: its risk rounds come when the test moves it. */
  const clock = new ManualClock();
  let riskReads = 0;
  before(async () => {
    h = await startExecHarness();
    ({ executor } = await h.executor());
    // Someone else's quotes around 50000, so the pair has a mid.
    const market = h.sim.client({ key: h.sim.addAccount() });
    for (const [type, price] of [
      ['buy', '48000.0'],
      ['sell', '52000.0'],
    ] as const) {
      await market.addOrder({ pair: 'XBTUSD', type, ordertype: 'limit', price, volume: '1' });
    }
    const client = h.keyClient();
    const tracker = new RedisOrderTracker({ redis: h.redis, prefix: h.prefix });
    const source = trackerRiskSource({
      tracker,
      client,
      pairs: h.pairs,
      clock,
    });
    supervisor = new Supervisor({
      client,
      flags: h.flags,
      config: parseWithSchema(
        SupervisorConfig,
        {
          heartbeat: { timeout_s: 60, interval_s: 20, roles: ['executor'] },
          status: { interval_ms: 1_000 },
          risk: { interval_ms: 200, limits: { max_base: '0.005' } },
        },
        'supervisor',
      ),
      clock,
      log: logCollector(logs),
      metrics: new SupervisorMetrics(registry, clock),
      risk: {
        read: async () => {
          const inputs = await source.read();
          riskReads += 1;
          return inputs;
        },
      },
    });
    await supervisor.start();
  });
  after(async () => {
    await supervisor.stop({ cancel: false });
    await h.close();
  });

  void it('halts and cancels every order once a fill takes the base position beyond max_base', async (t) => {
    await h.publish([
      h.intent(BTC, 'bid:0', { side: 'buy', price: '49000', volume: '0.01' }),
      h.intent(BTC, 'ask:0', { side: 'sell', price: '51000', volume: '0.01' }),
    ]);
    await until('both quotes on the book', async () =>
      (await h.simOrders()).length === 2 ? true : undefined,
    );
    await clock.advance(200);
    await until('a risk round over both quotes', () => riskReads === 2);
    assert.equal(supervisor.status().risk, 'ok');
    const taker = h.sim.client({ key: h.sim.addAccount() });
    await taker.addOrder({ pair: 'XBTUSD', type: 'sell', ordertype: 'market', volume: '0.01' });
    const filledAt = Date.now();
    // The executor learns the fill at its next full sync (every 60 s of its clock in the
    // harness), the supervisor at its next risk round.
    await h.advance(60_000);
    await until('the fill recorded', async () =>
      (await executor.tracker.fills(BTC)).length === 1 ? true : undefined,
    );
    await clock.advance(200);
    await until('halted', () => (h.flags.current().halted ? true : undefined));
    await until('our ask cancelled', async () =>
      (await h.simOrders()).length === 0 ? true : undefined,
    );
    t.diagnostic(
      `fill → position recorded → halted and all cancelled: ${Date.now() - filledAt} ms`,
    );
    assert.equal(
      h.flags.current().reason,
      'risk: XBTUSD: base position 0.01 beyond max_base 0.005',
    );
    const line = logs.find((l) => l.msg.startsWith('risk limit breached'));
    assert.equal(line?.fields.limit, 'max_base');
    assert.match(await registry.metrics(), /^makerd_risk_breaches_total\{limit="max_base"\} 1$/m);
    assert.equal((supervisor.status().risk as { limit: string }).limit, 'max_base');
  });
});
