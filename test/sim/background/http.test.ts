import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, dec } from '../../../src/core/index.js';
import type { SpotClient } from '../../../src/index.js';
import { startTestSim, type TestSim } from '../../support/sim.js';

/** The background market inside a running simulator, seen through the typed client. */
describe('background market over HTTP', () => {
  let sim: TestSim;
  let client: SpotClient;
  const clock = new ManualClock(Date.parse('2026-03-03T08:00:00Z'));

  before(async () => {
    sim = await startTestSim({ clock, config: { background: { enabled: true, seed: 17 } } });
    client = sim.client();
    await clock.advance(5_000);
  });
  after(() => sim.close());

  it('shows a two-sided book and a tape that moves', async () => {
    const depth = (await client.depth({ pair: 'XBTUSD', count: 500 })).result.XXBTZUSD;
    assert.equal(depth?.bids.length, 12);
    assert.equal(depth?.asks.length, 12);
    assert.ok(dec(depth.bids[0]!.price).lt(depth.asks[0]!.price));
    await clock.advance(60_000);
    const trades = (await client.trades({ pair: 'XBTUSD' })).result.pairs.XXBTZUSD ?? [];
    assert.ok(trades.length > 20, `${trades.length} prints in a minute`);
    const fv = sim.ctx.background.fairValue('XXBTZUSD');
    assert.ok(fv !== undefined && fv !== '60000');
  });

  it('fills a resting bid placed inside the spread', async () => {
    const before = (await client.depth({ pair: 'XBTUSD', count: 1 })).result.XXBTZUSD;
    const price = dec(before?.bids[0]?.price ?? '0')
      .plus('0.1')
      .toFixed(1);
    const placed = await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price,
      volume: '0.001',
    });
    const txid = placed.result.txid?.[0] ?? '';
    let status = 'open';
    for (let i = 0; i < 120 && status === 'open'; i++) {
      await clock.advance(5_000);
      status = sim.ctx.engine.order(txid)?.status ?? 'missing';
    }
    assert.equal(status, 'closed');
    const balance = (await client.balance()).result;
    // Fees are charged in quote currency by default: the whole 0.001 XBT arrives.
    assert.ok(dec(balance.XXBT ?? '0').eq('100.001'), balance.XXBT);
  });
});
