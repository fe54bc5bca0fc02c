import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, harness, levels, spec, str } from './support.js';

void describe('placement checks', () => {
  void it('refuses volumes below ordermin and notional below costmin', () => {
    const h = harness();
    const a = h.account('a');
    assert.equal(
      errorOf(() =>
        h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '0.00004', price: '60000' })),
      ),
      'EOrder:Order minimum not met',
    );
    assert.equal(
      errorOf(() =>
        h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '0.0001', price: '1000' })),
      ),
      'EOrder:Cost minimum not met',
    );
    // 0.0001 × 5000 = 0.5 is exactly costmin: allowed.
    h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '0.0001', price: '5000' }));
  });

  void it('refuses absolute prices off the tick, for price and price2', () => {
    const h = harness();
    const a = h.account('a');
    assert.equal(
      errorOf(() =>
        h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '1', price: '60000.05' })),
      ),
      'EOrder:Tick size check failed',
    );
    assert.equal(
      errorOf(() =>
        h.engine.place(
          a,
          spec({
            pair: h.btc,
            side: 'sell',
            type: 'stop-loss-limit',
            volume: '1',
            price: '59000',
            price2: '58999.99',
          }),
        ),
      ),
      'EOrder:Tick size check failed',
    );
  });

  void it('refuses what the available balance (balance minus holds) cannot pay', () => {
    const h = harness();
    const poor = h.account('poor', { ZUSD: '1000', XXBT: '0.5' });
    assert.equal(
      errorOf(() =>
        h.engine.place(poor, spec({ pair: h.btc, side: 'sell', volume: '0.6', price: '70000' })),
      ),
      'EOrder:Insufficient funds',
    );
    // 0.016 × 60000 = 960, plus 0.4 % fee reserve = 963.84: fits in 1000 once, not twice.
    h.engine.place(poor, spec({ pair: h.btc, side: 'buy', volume: '0.016', price: '60000' }));
    assert.equal(str(poor.wallet.hold('ZUSD')), '963.84');
    assert.equal(
      errorOf(() =>
        h.engine.place(poor, spec({ pair: h.btc, side: 'buy', volume: '0.016', price: '60000' })),
      ),
      'EOrder:Insufficient funds',
    );
  });

  void it('caps open and pending orders per pair at the tier maximum', () => {
    const h = harness();
    const a = h.account('a');
    for (let i = 0; i < 59; i++) {
      h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '0.001', price: '50000' }));
    }
    // A pending stop counts as well.
    h.engine.place(
      a,
      spec({ pair: h.btc, side: 'sell', type: 'stop-loss', volume: '0.001', price: '50000' }),
    );
    assert.equal(
      errorOf(() =>
        h.engine.place(a, spec({ pair: h.btc, side: 'buy', volume: '0.001', price: '50000' })),
      ),
      'EOrder:Orders limit exceeded',
    );
    // Per pair, and per tier.
    h.engine.place(a, spec({ pair: h.eth, side: 'buy', volume: '0.01', price: '2000' }));
    const pro = h.account('pro', undefined, 'pro');
    for (let i = 0; i < 61; i++) {
      h.engine.place(pro, spec({ pair: h.btc, side: 'buy', volume: '0.001', price: '50000' }));
    }
    assert.equal(h.engine.openOrders(pro, h.btc).length, 61);
  });

  void it('names the field of arguments that make no sense together', () => {
    const h = harness();
    const a = h.account('a');
    const cases: [Parameters<typeof spec>[0], string][] = [
      [{ pair: h.btc, side: 'buy', volume: '1' }, 'price'],
      [{ pair: h.btc, side: 'buy', type: 'market', volume: '1', displayvol: '0.1' }, 'displayvol'],
      [{ pair: h.btc, side: 'buy', volume: '1', price: '100', displayvol: '1' }, 'displayvol'],
      [{ pair: h.btc, side: 'buy', volume: '1', price: '100', viqc: true }, 'oflags'],
      [{ pair: h.btc, side: 'buy', type: 'market', volume: '1', post: true }, 'oflags'],
      [{ pair: h.btc, side: 'buy', volume: '1', price: '100', fcib: true, fciq: true }, 'oflags'],
      [
        { pair: h.btc, side: 'buy', volume: '1', price: '100', post: true, tif: 'IOC' },
        'timeinforce',
      ],
      [{ pair: h.btc, side: 'buy', volume: '1', price: '100', tif: 'GTD' }, 'expiretm'],
      [
        { pair: h.btc, side: 'buy', volume: '1', price: '100', expiretmMs: h.clock.now() - 1 },
        'expiretm',
      ],
      [{ pair: h.btc, side: 'buy', volume: '1.000000001', price: '100' }, 'volume'],
      [{ pair: h.btc, side: 'sell', type: 'trailing-stop', volume: '1', price: '59000' }, 'price'],
      [
        {
          pair: h.btc,
          side: 'sell',
          type: 'trailing-stop-limit',
          volume: '1',
          price: '+100',
          price2: '#5',
        },
        'price2',
      ],
      [
        { pair: h.btc, side: 'sell', type: 'stop-loss-limit', volume: '1', price: '59000' },
        'price2',
      ],
      [{ pair: h.btc, side: 'buy', type: 'settle-position', volume: '1' }, 'ordertype'],
      [{ pair: h.btc, side: 'buy', volume: '1', price: '-60000' }, 'price'],
    ];
    for (const [input, field] of cases) {
      assert.equal(
        errorOf(() => h.engine.place(a, spec(input))),
        `EGeneral:Invalid arguments:${field}`,
        JSON.stringify({ ...input, pair: input.pair.id }),
      );
    }
    assert.equal(
      errorOf(() =>
        h.engine.place(a, {
          ...spec({ pair: h.btc, side: 'buy', volume: '1', price: '100' }),
          leverage: '2',
        }),
      ),
      'EOrder:Cannot open position',
    );
    assert.equal(h.engine.openOrders(a).length, 0);
  });

  void it('validateOnly runs the checks and changes nothing', () => {
    const h = harness();
    const twin = harness();
    const a = h.account('a');
    const b = h.account('b');
    twin.account('a');
    twin.account('b');
    h.engine.place(a, spec({ pair: h.btc, side: 'sell', volume: '1', price: '60000' }));
    twin.engine.place(
      twin.accounts.require('a'),
      spec({ pair: twin.btc, side: 'sell', volume: '1', price: '60000' }),
    );

    const preview = h.engine.place(
      b,
      spec({ pair: h.btc, side: 'buy', volume: '2', price: '60000' }),
      {
        validateOnly: true,
      },
    );
    assert.equal(preview.txid, '');
    assert.equal(str(preview.volExec), '0');
    assert.deepEqual(levels(h, h.btc, 'asks'), ['60000:1']);
    assert.deepEqual(levels(h, h.btc, 'bids'), []);
    assert.equal(h.prints.length, 0);
    assert.equal(str(b.wallet.hold('ZUSD')), '0');
    assert.equal(h.engine.openOrders(b).length, 0);
    assert.equal(
      errorOf(() =>
        h.engine.place(b, spec({ pair: h.btc, side: 'buy', volume: '2000', price: '60000' }), {
          validateOnly: true,
        }),
      ),
      'EOrder:Insufficient funds',
    );
    // No id was used up: the next real order gets the id it gets without the preview.
    const real = h.engine.place(
      b,
      spec({ pair: h.btc, side: 'buy', volume: '0.1', price: '50000' }),
    );
    const twinReal = twin.engine.place(
      twin.accounts.require('b'),
      spec({ pair: twin.btc, side: 'buy', volume: '0.1', price: '50000' }),
    );
    assert.equal(real.txid, twinReal.txid);
  });
});
