import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bestQuotes } from '../../src/orders/index.js';
import { trackedOrder } from '../support/tracked-order.js';

void describe('bestQuotes: our best bid and ask on the book (the demo status line)', () => {
  void it('takes the highest resting buy and the lowest resting sell, exactly', () => {
    const quotes = bestQuotes([
      trackedOrder({ side: 'buy', price: '0.49' }),
      trackedOrder({ side: 'buy', price: '0.5', state: 'partially-filled' }),
      trackedOrder({ side: 'sell', price: '0.52' }),
      trackedOrder({ side: 'sell', price: '0.510000000000000001' }),
    ]);
    assert.deepEqual(quotes, { bid: '0.5', ask: '0.510000000000000001' });
  });

  void it("leaves out the key's foreign orders and ours that no longer rest", () => {
    const quotes = bestQuotes([
      trackedOrder({ side: 'buy', price: '0.6', slot: 'foreign' }),
      trackedOrder({ side: 'buy', price: '0.55', state: 'canceled' }),
      trackedOrder({ side: 'buy', price: '0.5' }),
      trackedOrder({ side: 'sell', price: '0.4', state: 'filled' }),
    ]);
    assert.deepEqual(quotes, { bid: '0.5' });
  });
});
