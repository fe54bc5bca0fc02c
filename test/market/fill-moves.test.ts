import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from '../../src/core/index.js';
import { FillMoves, type BalanceFill } from '../../src/market/fill-moves.js';
import { inventory } from '../../src/market/snapshot-builder.js';
import { ETHUSD, XBTUSD } from '../support/pairs.js';

const fill = (over: Partial<BalanceFill>): BalanceFill => ({
  pair: XBTUSD.id,
  side: 'buy',
  volume: dec('0.1'),
  cost: dec('5000.05'),
  fee: dec('12.500125'),
  feeIn: 'quote',
  timeMs: 1_000,
  ...over,
});

/** Per asset: [total, available] of the moves. */
const shown = (moves: FillMoves): Record<string, [string, string]> =>
  Object.fromEntries(
    [...moves.moves()].map(([asset, m]) => [asset, [m.total.toFixed(), m.available.toFixed()]]),
  );

describe('FillMoves: balances moved by our fills since the balance answer', () => {
  it('moves what each fill received and paid, exactly, across the pairs sharing an asset', () => {
    const moves = new FillMoves([XBTUSD, ETHUSD]);
    assert.deepEqual(moves.add(fill({})), ['XXBT', 'ZUSD']);
    // A sell with its fee in base: the base paid includes the fee.
    moves.add(
      fill({
        pair: ETHUSD.id,
        side: 'sell',
        volume: dec('2'),
        cost: dec('6000'),
        fee: dec('0.005'),
        feeIn: 'base',
      }),
    );
    assert.deepEqual(shown(moves), {
      // Received: total and available. Paid: total only (the order held it).
      XXBT: ['0.1', '0.1'],
      ZUSD: ['987.449875', '6000'],
      XETH: ['-2.005', '0'],
    });
  });

  it('leaves out a fill the balance answer in use already holds, and drops those a new one holds', () => {
    const moves = new FillMoves([XBTUSD]);
    moves.polled(2_000);
    assert.deepEqual(moves.add(fill({ timeMs: 1_999 })), [], 'before the call: in the answer');
    moves.add(fill({ timeMs: 2_000 }));
    moves.add(fill({ timeMs: 3_000, volume: dec('0.2'), cost: dec('10000'), fee: dec('0') }));
    assert.equal(moves.moves().get('XXBT')?.total.toFixed(), '0.3');
    moves.polled(2_500);
    assert.equal(moves.moves().get('XXBT')?.total.toFixed(), '0.2');
    assert.equal(moves.moves().get('ZUSD')?.total.toFixed(), '-10000');
    moves.add(fill({ pair: 'XLTCZUSD' }));
    assert.equal(moves.moves().size, 2, 'a pair not fed moves nothing');
  });

  it('moves the inventory only once there are balances to move', () => {
    const moves = new FillMoves([XBTUSD]);
    moves.add(fill({}));
    const none = inventory(undefined, XBTUSD, dec('50000'), moves.moves());
    assert.equal(none.base.total.toFixed(), '0');
    const balances = {
      XXBT: { balance: '1', hold_trade: '0' },
      ZUSD: { balance: '50000', hold_trade: '5012.550125' },
    };
    const held = inventory(balances, XBTUSD, dec('50000'), moves.moves());
    assert.deepEqual(
      [held.base.total, held.quote.total, held.quote.available].map((d) => d.toFixed()),
      ['1.1', '44987.449875', '44987.449875'],
    );
  });
});
