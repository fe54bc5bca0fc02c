import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { consoleOrders } from '../../src/cli/console/runner-report.js';
import { dec, type Side } from '../../src/core/index.js';
import type { Level3Order } from '../../src/core/market.js';
import type { TrackedOrder } from '../../src/executor/index.js';
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

const l3 = (orderId: string, price: string, volume: string, ns: bigint): Level3Order => ({
  orderId,
  price: dec(price),
  volume: dec(volume),
  timestampNs: ns,
  own: orderId.startsWith('O'),
});

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

  it('gives the volume ahead in the queue from the last Level3 answer that holds the order', () => {
    const withL3 = {
      ...book,
      level3: {
        bids: [
          l3('X1', '99.8', '0.3', 10n),
          l3('OB1', '99.8', '0.4', 20n),
          l3('X2', '99.8', '0.7', 20n),
          l3('X3', '99.8', '1.1', 30n),
          l3('X4', '99.9', '5', 5n),
        ],
        asks: [],
      },
    };
    const orders = consoleOrders(withL3, [
      tracked('OB1', 'buy', '99.8'),
      tracked('OB9', 'buy', '99.7'),
    ]);
    assert.deepEqual(
      orders.map((o) => [o.price, o.queueAhead]),
      [
        ['99.8', '0.3'],
        ['99.7', undefined],
      ],
      'same price and earlier only; an order placed after the answer has no place yet',
    );
  });
});
