import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { dec } from '../../src/core/index.js';
import { RunnerMetrics } from '../../src/runner/metrics.js';

describe('RunnerMetrics.observeQuotes', () => {
  const sample = async (registry: Registry, name: string, labels: Record<string, string>) => {
    const family = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    return family?.values.find((v) =>
      Object.entries(labels).every(([k, val]) => v.labels[k] === val),
    )?.value;
  };

  it('charts the mid, the innermost quote of each side and their spread in bps', async () => {
    const registry = new Registry();
    const metrics = new RunnerMetrics(registry);
    metrics.observeQuotes('XBTUSD', dec('50000'), [
      { side: 'buy', price: dec('49950') },
      { side: 'buy', price: dec('49975') },
      { side: 'sell', price: dec('50025') },
      { side: 'sell', price: dec('50050') },
    ]);
    assert.equal(await sample(registry, 'makerd_mid_price', { pair: 'XBTUSD' }), 50000);
    assert.equal(
      await sample(registry, 'makerd_quote_price', { pair: 'XBTUSD', side: 'buy' }),
      49975,
    );
    assert.equal(
      await sample(registry, 'makerd_quote_price', { pair: 'XBTUSD', side: 'sell' }),
      50025,
    );
    assert.equal(await sample(registry, 'makerd_quoted_spread_bps', { pair: 'XBTUSD' }), 10);
  });

  it('shows a side without quotes as NaN, so a chart has a gap instead of a stale line', async () => {
    const registry = new Registry();
    const metrics = new RunnerMetrics(registry);
    metrics.observeQuotes('XBTUSD', dec('50000'), [{ side: 'buy', price: dec('49975') }]);
    metrics.observeQuotes('XBTUSD', dec('50010'), [{ side: 'sell', price: dec('50030') }]);
    assert.ok(Number.isNaN(await sample(registry, 'makerd_quote_price', { side: 'buy' })));
    assert.ok(Number.isNaN(await sample(registry, 'makerd_quoted_spread_bps', { pair: 'XBTUSD' })));
    assert.equal(await sample(registry, 'makerd_mid_price', { pair: 'XBTUSD' }), 50010);
  });
});
