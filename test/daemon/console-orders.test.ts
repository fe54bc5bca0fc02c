import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consoleOrders } from '../../src/daemon/console-report.js';
import { dec, type Side } from '../../src/core/index.js';
import type { TrackedOrder } from '../../src/orders/index.js';
import { snapshot } from '../strategies/snapshot-fixture.js';
import { trackedOrder } from '../support/tracked-order.js';

function tracked(
  txid: string | null,
  side: Side,
  price: string,
  extra: Partial<TrackedOrder> = {},
) {
  return trackedOrder({
    txid,
    side,
    price,
    slot: side === 'buy' ? 'bid:0' : 'ask:0',
    volume: '0.5',
    volumeExecuted: '0.1',
    state: 'partially-filled',
    ...extra,
  });
}

void describe("the console's list of our orders", () => {
  const book = snapshot({ bids: [['99.9'], ['99.8'], ['99.7']], asks: [['100.1'], ['100.2']] });

  it('gives each order its level and open volume, best first per side, foreign and closed left out', () => {
    const orders = consoleOrders(book, [
      tracked('OB2', 'buy', '99.7'),
      tracked('OA1', 'sell', '100.2'),
      tracked('OB1', 'buy', '99.8'),
      tracked('OF', 'buy', '99.9', { slot: 'foreign' }),
      tracked('OC', 'buy', '99.9', { state: 'canceled' }),
    ]);
    assert.deepEqual(
      orders.map((o) => [o.side, o.price, o.level, o.volume]),
      [
        ['buy', '99.8', 1, '0.4'],
        ['buy', '99.7', 2, '0.4'],
        ['sell', '100.2', 1, '0.4'],
      ],
    );
    assert.ok(
      orders.every((o) => o.queueAhead === undefined),
      'no Level3: no queue place',
    );
  });

  it("shows each order's queue place from the snapshot's estimator, marking estimates", () => {
    const place = (txid: string, ahead: string, source: 'level3' | 'depth') => ({
      txid,
      side: 'buy' as const,
      price: dec('99.8'),
      ahead: dec(ahead),
      behind: dec('1'),
      source,
      rule: 'log',
      asOfMs: 0,
    });
    const withQueue = snapshot({
      bids: [['99.9'], ['99.8'], ['99.7']],
      asks: [['100.1'], ['100.2']],
      queue: [place('OB1', '0.3', 'level3'), place('OB2', '1.25', 'depth')],
    });
    const orders = consoleOrders(withQueue, [
      tracked('OB1', 'buy', '99.8'),
      tracked('OB2', 'buy', '99.8'),
      tracked('OB9', 'buy', '99.7'),
    ]);
    assert.deepEqual(
      orders.map((o) => [o.price, o.queueAhead, o.queueSource, o.queueRule]),
      [
        ['99.8', '0.3', 'level3', undefined],
        ['99.8', '1.25', 'depth', 'log'],
        ['99.7', undefined, undefined, undefined],
      ],
      'exact from Level3, estimated by the rule, and none for an order the estimator has no place for',
    );
  });
});
