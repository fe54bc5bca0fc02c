import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError, dec, parseWithSchema } from '../../src/core/index.js';
import {
  RiskConfig,
  RiskGuard,
  checkLossQuote,
  checkRiskPairs,
  type PairRisk,
  type RiskOrder,
} from '../../src/safety/index.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function config(over: Record<string, unknown> = {}): RiskConfig {
  return parseWithSchema(RiskConfig, over, 'supervisor.risk');
}

const order = (side: 'buy' | 'sell', price: string, volume = '0.01'): RiskOrder => ({
  side,
  price: dec(price),
  volume: dec(volume),
});

function pair(over: Partial<PairRisk> = {}): PairRisk {
  return {
    pair: 'XXBTZUSD',
    altname: 'XBTUSD',
    quoteAsset: 'ZUSD',
    base: dec(0),
    quote: dec(0),
    avgPrice: dec(0),
    realizedPnl: dec(0),
    fills: 0,
    mid: dec('50000'),
    midAtMs: NOW,
    orders: [order('buy', '49990'), order('sell', '50010')],
    ...over,
  };
}

describe('RiskGuard', () => {
  it('reads how near each configured limit is, and each pair marked to mid', () => {
    const guard = new RiskGuard(
      config({
        limits: { max_base: '1' },
        pairs: { XBTUSD: { max_quote: '40000' } },
        max_loss: '100',
      }),
    );
    const start = pair({ base: dec('0.5'), quote: dec('-25000'), avgPrice: dec('50000') });
    assert.equal(guard.check([start], NOW), undefined);
    // The mid falls 60: the long half unit loses 30 of the 100 allowed.
    const later = { ...start, mid: dec('49940'), realizedPnl: dec('0') };
    assert.equal(guard.check([later], NOW + 1000), undefined);
    const reading = guard.reading([later]);
    assert.deepEqual(
      reading.usage.map((u) => [u.limit, u.pair, u.ratio]),
      [
        ['max_base', 'XBTUSD', 0.5],
        ['max_quote', 'XBTUSD', 0.625],
        ['max_loss', 'all', 0.3],
      ],
    );
    assert.equal(reading.markedPnl.get('XBTUSD')?.toFixed(), '-30');
  });

  it('passes a pair within every limit', () => {
    const guard = new RiskGuard(
      config({
        limits: {
          max_base: '1',
          max_quote: '50000',
          max_order_volume: '0.1',
          max_order_notional: '1000',
          max_open_orders: 4,
        },
        max_loss: '100',
        fill_rate: { max_fills: 5, window_s: 60 },
      }),
    );
    assert.equal(guard.check([pair({ base: dec('-0.5'), quote: dec('25000') })], NOW), undefined);
  });

  const cases: [string, Record<string, unknown>, Partial<PairRisk>, string][] = [
    [
      'max_base',
      { limits: { max_base: '0.5' } },
      { base: dec('-0.51') },
      'XBTUSD: base position -0.51 beyond max_base 0.5',
    ],
    [
      'max_quote',
      { limits: { max_quote: '1000' } },
      { quote: dec('1000.01') },
      'XBTUSD: quote position 1000.01 beyond max_quote 1000',
    ],
    [
      'max_open_orders',
      { limits: { max_open_orders: 1 } },
      {},
      'XBTUSD: 2 orders open, max_open_orders 1',
    ],
    [
      'max_order_volume',
      { limits: { max_order_volume: '0.5' } },
      { orders: [order('buy', '49990', '0.6')] },
      'XBTUSD: buy order of 0.6 beyond max_order_volume 0.5',
    ],
    [
      'max_order_notional',
      { limits: { max_order_notional: '400' } },
      { orders: [order('sell', '50010', '0.01')] },
      'XBTUSD: sell order worth 500.1 beyond max_order_notional 400',
    ],
    [
      'crossed_quotes',
      {},
      { orders: [order('buy', '50020'), order('sell', '50010')] },
      'XBTUSD: our bid 50020 crosses our ask 50010',
    ],
    ['stale_after_s', {}, { mid: undefined, midAtMs: undefined }, 'XBTUSD: no market price known'],
    [
      'stale_after_s',
      { stale_after_s: 10 },
      { midAtMs: NOW - 12_500 },
      'XBTUSD: market data 12.5 s old, stale_after_s 10; makerd resume clears it once the data is fresh',
    ],
    [
      'quote_band_bps',
      { quote_band_bps: 100 },
      { orders: [order('buy', '49400')] },
      'XBTUSD: buy at 49400 is 120 bps from mid 50000, quote_band_bps 100',
    ],
  ];
  for (const [limit, cfg, state, reason] of cases) {
    it(`trips ${limit}: ${reason}`, () => {
      const breach = new RiskGuard(config(cfg)).check([pair(state)], NOW);
      assert.deepEqual(breach, { limit, pair: 'XXBTZUSD', reason });
    });
  }

  it('judges crossing and the band on orders known live, counting those in doubt', () => {
    const guard = new RiskGuard(config({ quote_band_bps: 100, limits: { max_open_orders: 2 } }));
    // An edit of the bid in doubt: its record still says 50020, above our ask.
    const doubtful = { ...order('buy', '50020'), inDoubt: true };
    assert.equal(
      guard.check([pair({ orders: [doubtful, order('sell', '50010')] })], NOW),
      undefined,
    );
    const farAway = { ...order('buy', '40000'), inDoubt: true };
    assert.equal(guard.check([pair({ orders: [farAway] })], NOW), undefined);
    const three = [doubtful, order('sell', '50010'), order('sell', '50030')];
    assert.equal(guard.check([pair({ orders: three })], NOW)?.limit, 'max_open_orders');
  });

  it('lets an order exactly at the band edge pass, and one tick beyond trip', () => {
    const guard = new RiskGuard(config({ quote_band_bps: 100 }));
    assert.equal(
      guard.check([pair({ orders: [order('buy', '49500'), order('sell', '50500')] })], NOW),
      undefined,
    );
    assert.equal(
      guard.check([pair({ orders: [order('buy', '49499.9')] })], NOW)?.limit,
      'quote_band_bps',
    );
  });

  it('applies a pair override by altname on top of the common limits', () => {
    const guard = new RiskGuard(
      config({
        limits: { max_base: '10', max_open_orders: 1 },
        pairs: { XBTUSD: { max_base: '0.1' } },
      }),
    );
    assert.deepEqual(guard.limitsOf({ pair: 'XXBTZUSD', altname: 'XBTUSD' }), {
      max_base: '0.1',
      max_open_orders: 1,
    });
    assert.equal(guard.check([pair({ base: dec('0.2'), orders: [] })], NOW)?.limit, 'max_base');
    assert.equal(
      guard.check(
        [pair({ pair: 'XETHZUSD', altname: 'ETHUSD', base: dec('0.2'), orders: [] })],
        NOW,
      ),
      undefined,
    );
  });

  it('trips the fill-rate breaker on fills within the window only', () => {
    const guard = new RiskGuard(config({ fill_rate: { max_fills: 3, window_s: 10 } }));
    assert.equal(guard.check([pair({ fills: 100 })], NOW), undefined);
    assert.equal(guard.check([pair({ fills: 103 })], NOW + 5_000), undefined);
    // 4 fills within 10 s of the first sample still in the window.
    assert.deepEqual(guard.check([pair({ fills: 104 })], NOW + 9_000), {
      limit: 'fill_rate',
      pair: 'XXBTZUSD',
      reason: 'XBTUSD: 4 fills within 10 s, fill_rate.max_fills 3',
    });
    // Later, the old samples have left the window.
    const calm = new RiskGuard(config({ fill_rate: { max_fills: 3, window_s: 10 } }));
    calm.check([pair({ fills: 100 })], NOW);
    assert.equal(calm.check([pair({ fills: 104 })], NOW + 11_000), undefined);
  });

  it('measures loss since start as realized plus positions marked to mid, over every pair', () => {
    const guard = new RiskGuard(config({ max_loss: '100' }));
    const eth = { pair: 'XETHZUSD', altname: 'ETHUSD', mid: dec('3000'), orders: [] };
    // Start: long 1 BTC bought at 50000 (mid 50000), 10 ETH at 3000: nothing lost yet.
    const start = [
      pair({ base: dec(1), avgPrice: dec(50_000), orders: [] }),
      pair({ ...eth, base: dec(10), avgPrice: dec(3000) }),
    ];
    assert.equal(guard.check(start, NOW), undefined);
    // BTC mid 49950 (−50), ETH mid 2994 (−60), 5 realized: 105 lost.
    const later = [
      pair({
        base: dec(1),
        avgPrice: dec(50_000),
        realizedPnl: dec(5),
        mid: dec(49_950),
        orders: [],
      }),
      pair({ ...eth, base: dec(10), avgPrice: dec(3000), mid: dec(2994) }),
    ];
    assert.deepEqual(guard.check(later, NOW + 1_000), {
      limit: 'max_loss',
      pair: undefined,
      reason: 'loss since start 105 ZUSD beyond max_loss 100',
    });
  });

  it('measures the daily loss from 00:00 UTC', () => {
    const guard = new RiskGuard(config({ max_daily_loss: '50' }));
    const beforeMidnight = Date.UTC(2026, 10, 22, 23, 59, 0);
    const check = (realized: string, afterMs: number) => {
      const t = beforeMidnight + afterMs;
      return guard.check([pair({ realizedPnl: dec(realized), midAtMs: t, orders: [] })], t);
    };
    assert.equal(check('0', 0), undefined);
    assert.equal(check('-40', 30_000), undefined);
    // A new day starts from -40: another 40 is within the limit, 60.5 is not.
    assert.equal(check('-40', 120_000), undefined);
    assert.equal(check('-80', 130_000), undefined);
    assert.equal(check('-100.5', 140_000)?.reason, 'loss today 60.5 ZUSD beyond max_daily_loss 50');
  });

  it('refuses a loss limit over pairs quoted in different assets, naming the field', () => {
    assert.throws(
      () => checkLossQuote(config({ max_loss: '10' }), ['ZUSD', 'ZEUR']),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.field === 'supervisor.risk.max_loss' &&
        /quoted in ZUSD and ZEUR/.test(err.message),
    );
    assert.doesNotThrow(() => checkLossQuote(config({}), ['ZUSD', 'ZEUR']));
  });

  it('refuses a per-pair limit that names no traded pair, with the likely one', () => {
    const traded = [
      { pair: 'XXBTZUSD', altname: 'XBTUSD' },
      { pair: 'XETHZUSD', altname: 'ETHUSD' },
    ];
    assert.throws(
      () => checkRiskPairs(config({ pairs: { XBTUSDT: { max_base: '1' } } }), traded),
      (err: unknown) =>
        err instanceof InvalidInputError &&
        err.message ===
          'supervisor.risk.pairs.XBTUSDT: names no traded pair; did you mean XBTUSD? ' +
            '(makerd trades XBTUSD, ETHUSD)',
    );
    assert.doesNotThrow(() =>
      checkRiskPairs(
        config({ pairs: { XBTUSD: { max_base: '1' }, XETHZUSD: { max_base: '2' } } }),
        traded,
      ),
    );
  });

  it('refuses an amount that is not a plain positive decimal, naming the field', () => {
    assert.throws(
      () => config({ limits: { max_base: '-1' } }),
      (err: unknown) =>
        err instanceof InvalidInputError && err.field === 'supervisor.risk.limits.max_base',
    );
  });
});
