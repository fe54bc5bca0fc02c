import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, type QueuePosition } from '../../../src/core/index.js';
import { QueueCheck } from '../../../src/lab/replay/index.js';
import type { BookEntry, BookView } from '../../../src/sim/engine/types.js';

const entry = (txid: string, accountKey: string, price: string, qty: string): BookEntry => ({
  txid,
  accountKey,
  price: dec(price),
  qty: dec(qty),
  timestampNs: 0n,
});

const estimate = (txid: string, ahead: string): QueuePosition => ({
  txid,
  side: 'buy',
  price: dec('100'),
  ahead: dec(ahead),
  behind: dec('0'),
  source: 'depth',
  rule: 'log',
  asOfMs: 0,
});

describe('the replay checks the queue estimator against the exact queue', () => {
  it('compares the estimated volume ahead with the engine queue, ours left out', () => {
    const book: BookView = {
      bids: [
        entry('A', 'other', '100', '1'),
        entry('MINE0', 'us', '100', '5'),
        entry('B', 'other', '100', '2'),
        entry('MINE', 'us', '100', '0.1'),
        entry('C', 'other', '100', '1'),
        entry('D', 'other', '99.9', '7'),
      ],
      asks: [],
    };
    const check = new QueueCheck('us');
    // Exact: 1 + 2 = 3 ahead (our own 5 is not the market's), 1 behind: the level holds 4.
    check.observe([estimate('MINE', '2')], () => book);
    check.observe([estimate('MINE', '3')], () => book);
    // An order the engine no longer holds is no sample.
    check.observe([estimate('GONE', '1')], () => book);
    assert.deepEqual(check.figures(), {
      samples: 2,
      shared: 2,
      meanPercent: 12.5,
      meanAbsAhead: 0.5,
    });
  });

  it('counts an order alone at its price: exact when estimated alone, wrong by all otherwise', () => {
    const book: BookView = { bids: [entry('MINE', 'us', '100', '0.1')], asks: [] };
    const check = new QueueCheck('us');
    check.observe([estimate('MINE', '0')], () => book);
    check.observe([estimate('MINE', '0.5')], () => book);
    assert.deepEqual(check.figures(), {
      samples: 2,
      shared: 0,
      meanPercent: 50,
      meanAbsAhead: 0.25,
    });
  });

  it('has no figure before a sample', () => {
    assert.deepEqual(new QueueCheck('us').figures(), {
      samples: 0,
      shared: 0,
      meanPercent: null,
      meanAbsAhead: null,
    });
  });
});
