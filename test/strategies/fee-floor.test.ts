/**
 * "No strategy quotes inside the maker fee unless told to" (issue #39): every built-in keeps each
 * quote at least maker fee + measured adverse selection + min_edge_bps from the mid, reports that
 * floor with its quotes, and quotes inside it only with fee_floor: false.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, type StrategyPlugin, type TSchema } from '../../src/runner/strategy-api.js';
import avellanedaStoikov from '../../strategies/avellaneda-stoikov.js';
import glft from '../../strategies/glft.js';
import spread from '../../strategies/spread.js';
import { contextFor } from './harness.js';
import { snapshot, type SnapshotFields } from './snapshot-fixture.js';

/** Options that put each strategy's own quotes well inside a 30 bps floor around mid 100. */
const TIGHT: readonly [string, StrategyPlugin<TSchema, unknown>, Record<string, unknown>][] = [
  ['spread', spread, { min_spread_bps: 10 }],
  [
    'avellaneda-stoikov',
    avellanedaStoikov,
    { order_book_liquidity: 1000, min_spread_bps: 0, initial_volatility: 0 },
  ],
  ['glft', glft, { fallback_half_spread_bps: 0 }],
];

/** Mid 100 on a wide book, maker fee 25 bps, our last 20 fills met 3 bps of adverse selection. */
const MARKET: SnapshotFields = {
  bids: [['99.0']],
  asks: [['101.0']],
  makerFeeBps: '25',
  adverseBps: '3',
};

function quote(
  plugin: StrategyPlugin<TSchema, unknown>,
  options: Record<string, unknown>,
  market: SnapshotFields = MARKET,
) {
  const ctx = contextFor(plugin, options);
  return plugin.quote(snapshot(market), plugin.init(ctx), ctx);
}

describe('the fee floor of the built-in strategies', () => {
  for (const [name, plugin, options] of TIGHT) {
    it(`${name}: no quote nearer the mid than fee 25 + adverse 3 + edge 2 = 30 bps`, () => {
      const result = quote(plugin, options);
      assert.ok(result.quotes.length >= 2, 'it quotes both sides');
      for (const q of result.quotes) {
        const distance = q.price.minus(100).abs().div(100).times(10_000);
        assert.ok(distance.gte(30), `${q.side} at ${q.price.toFixed()}: ${distance.toFixed()} bps`);
      }
      const bid = result.quotes.find((q) => q.side === 'buy' && q.level === 0);
      assert.equal(bid?.price.toFixed(), '99.7', 'the floor binds: the strategy wanted closer');
      assert.deepEqual(
        {
          enabled: result.floor?.enabled,
          halfSpreadBps: result.floor?.halfSpreadBps.toFixed(),
          makerFeeBps: result.floor?.makerFeeBps.toFixed(),
          adverseBps: result.floor?.adverseBps.toFixed(),
          minEdgeBps: result.floor?.minEdgeBps.toFixed(),
        },
        { enabled: true, halfSpreadBps: '30', makerFeeBps: '25', adverseBps: '3', minEdgeBps: '2' },
      );
    });

    it(`${name}: without the floor (fee_floor: false) its own price stands`, () => {
      const result = quote(plugin, { ...options, fee_floor: false });
      const bid = result.quotes.find((q) => q.side === 'buy' && q.level === 0);
      assert.ok(bid !== undefined);
      if (name === 'glft') {
        // GLFT's half-spread includes the maker fee itself: at the fee, never inside it.
        assert.equal(bid.price.toFixed(), '99.75');
      } else {
        assert.ok(bid.price.gt(dec('99.75')), `inside the fee: bid ${bid.price.toFixed()}`);
      }
      assert.equal(result.floor?.halfSpreadBps.toFixed(), '0');
    });
  }

  it('a favourable markout never lowers the floor below the fee and the edge', () => {
    const result = quote(
      spread,
      { min_spread_bps: 10 },
      {
        ...MARKET,
        adverseBps: '-8',
      },
    );
    assert.equal(result.floor?.adverseBps.toFixed(), '0');
    assert.equal(result.floor?.halfSpreadBps.toFixed(), '27');
  });

  it("follows the key's fee: at a 0 % maker fee only adverse selection and edge remain", () => {
    const result = quote(
      spread,
      { min_spread_bps: 2 },
      {
        ...MARKET,
        makerFeeBps: '0',
      },
    );
    assert.equal(result.floor?.halfSpreadBps.toFixed(), '5');
    const ask = result.quotes.find((q) => q.side === 'sell');
    assert.equal(ask?.price.toFixed(), '100.05');
  });
});
