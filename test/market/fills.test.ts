import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FillTracker, mergeTrades, type TradeRow } from '../../src/market/index.js';
import { ETHUSD, order, XBTUSD } from './fixtures.js';

const T = 1_700_000_000_000;
const summary = (fills: ReturnType<FillTracker['observeOpen']>) =>
  fills.map((f) => [f.txid, f.pair, f.side, f.price.toFixed(), f.volume.toFixed(), f.timeMs]);

describe('fill detection from successive OpenOrders answers', () => {
  it('takes the first answer as the baseline, then reports vol_exec growth', () => {
    const t = new FillTracker([XBTUSD, ETHUSD]);
    const first = t.observeOpen(
      { A: order({ volExec: '0.3', avg: '100.0', price: '100.0', side: 'sell' }) },
      T,
    );
    assert.deepEqual(first, []);
    const second = t.observeOpen(
      { A: order({ volExec: '0.5', avg: '100.0', price: '100.0', side: 'sell' }) },
      T + 1000,
    );
    assert.deepEqual(summary(second), [['A', 'XXBTZUSD', 'sell', '100', '0.2', T + 1000]]);
    assert.deepEqual(t.observeOpen({ A: order({ volExec: '0.5', avg: '100.0' }) }, T + 2000), []);
  });

  it('prices a post-only fill at its limit and a taker fill from the average', () => {
    const t = new FillTracker([XBTUSD]);
    t.observeOpen({}, T);
    const fills = t.observeOpen(
      {
        P: order({ price: '101.0', volExec: '1', avg: '101.0', oflags: 'fciq,post' }),
        Q: order({ price: '105.0', volExec: '0.5', avg: '103.2' }),
      },
      T + 1000,
    );
    assert.deepEqual(
      fills.map((f) => [f.txid, f.price.toFixed(), f.volume.toFixed()]),
      [
        ['P', '101', '1'],
        ['Q', '103.2', '0.5'],
      ],
    );
    // Q fills 0.5 more: average 103.6 over 1.0 means the second half went at 104.0.
    const more = t.observeOpen(
      {
        P: order({ price: '101.0', volExec: '1', avg: '101.0', oflags: 'fciq,post' }),
        Q: order({ price: '105.0', volExec: '1', avg: '103.6' }),
      },
      T + 2000,
    );
    assert.deepEqual(summary(more), [['Q', 'XXBTZUSD', 'buy', '104', '0.5', T + 2000]]);
  });

  it('queries vanished orders and reports what filled before they closed', () => {
    const t = new FillTracker([XBTUSD]);
    t.observeOpen({ V: order({ volExec: '0.1', avg: '100.0' }), W: order({}) }, T);
    assert.deepEqual(t.observeOpen({}, T + 1000), []);
    assert.deepEqual(t.pendingQueries(), ['V', 'W']);
    const fills = t.observeQueried(
      ['V', 'W'],
      {
        V: order({ status: 'closed', volExec: '1', avg: '100.0', closetm: 1_700_000_000.75 }),
        W: order({ status: 'canceled', volExec: '0' }),
      },
      T + 1500,
    );
    assert.deepEqual(summary(fills), [['V', 'XXBTZUSD', 'buy', '100', '0.9', T + 750]]);
    assert.deepEqual(t.pendingQueries(), []);
  });

  it('ignores orders of pairs it does not feed, and forgets ids on request', () => {
    const t = new FillTracker([XBTUSD]);
    t.observeOpen({ E: order({ pair: 'ETHUSD' }), X: order({}) }, T);
    t.observeOpen({ E: order({ pair: 'ETHUSD', volExec: '1' }) }, T + 1);
    assert.deepEqual(t.pendingQueries(), ['X']);
    t.forget(['X']);
    assert.deepEqual(t.pendingQueries(), []);
  });
});

describe('trades merging', () => {
  const row = (id: number, time: number): TradeRow => ['1', '1', time, 'b', 'l', '', id];
  it('dedupes by trade id, keeps time order and the newest rows', () => {
    const merged = mergeTrades([row(1, 1), row(2, 2)], [row(2, 2), row(3, 3), row(4, 4)], 3);
    assert.deepEqual(
      merged.map((r) => r[6]),
      [2, 3, 4],
    );
  });
});
