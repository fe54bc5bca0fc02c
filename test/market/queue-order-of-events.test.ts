/**
 * The queue estimator fed by hand: which answers it waits for, what it does with a price no
 * answer reached, several of our orders at one price, and what it reports.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, type BookView, type PublicTrade, type Side } from '../../src/core/index.js';
import { parseQueueRule, QueueEstimator, type QueueOrder } from '../../src/market/index.js';

const T = 1_000_000;

function book(bids: [string, string][], asks: [string, string][] = [['101', '5']]): BookView {
  const level = ([price, volume]: [string, string]) => ({ price: dec(price), volume: dec(volume) });
  return { bids: bids.map(level), asks: asks.map(level) };
}

function order(txid: string, side: Side, price: string, remaining: string, at: number): QueueOrder {
  return { txid, side, price: dec(price), remaining: dec(remaining), openedAtMs: at };
}

let tradeId = 0;
function sell(price: string, volume: string, at: number): PublicTrade {
  return {
    price: dec(price),
    volume: dec(volume),
    timeMs: at,
    side: 'sell',
    orderType: 'limit',
    tradeId: ++tradeId,
  };
}

function places(est: QueueEstimator): string[] {
  return est
    .positions()
    .map(
      (p) => `${p.txid} ${p.side} ${p.price.toFixed()} ${p.ahead.toFixed()}/${p.behind.toFixed()}`,
    );
}

const linear = () => parseQueueRule('linear', 'rule');

describe('QueueEstimator: the order of events', () => {
  it('settles an answer without its trades once it has waited tradesWaitMs, then leaves out older trades', () => {
    const est = new QueueEstimator({ rule: linear(), tradesWaitMs: 10_000 });
    est.depth(book([['100', '4']]), T);
    est.orders([order('o1', 'buy', '100', '1', T + 100)], T + 100);
    est.depth(
      book([
        ['100', '6'],
        ['99', '1'],
      ]),
      T + 1_000,
    );
    assert.deepEqual(places(est), ['o1 buy 100 4/1']);
    // 2 of the level went; the trade that took it is not known yet and never comes in time.
    est.depth(
      book([
        ['100', '4'],
        ['99', '1'],
      ]),
      T + 2_000,
    );
    assert.deepEqual(places(est), ['o1 buy 100 2.4/0.6']);
    est.depth(
      book([
        ['100', '4'],
        ['99', '1'],
      ]),
      T + 12_500,
    );
    // The trade comes after the answer that showed it was final: the rule's split stands.
    est.trades([sell('100', '2', T + 1_500)], T + 13_000);
    assert.equal(est.stats.lateTrades, 1);
    assert.deepEqual(places(est), ['o1 buy 100 2.4/0.6']);
  });

  it('refolds an answer once the trades before it arrive in time', () => {
    const est = new QueueEstimator({ rule: linear(), tradesWaitMs: 10_000 });
    est.depth(book([['100', '4']]), T);
    est.orders([order('o1', 'buy', '100', '1', T + 100)], T + 100);
    est.depth(book([['100', '5']]), T + 1_000);
    est.depth(book([['100', '3']]), T + 2_000);
    est.trades([sell('100', '2', T + 1_500)], T + 3_000);
    assert.deepEqual(places(est), ['o1 buy 100 2/0']);
    assert.equal(est.stats.lateTrades, 0);
  });

  it('takes every answer as final when trades are not followed', () => {
    const est = new QueueEstimator({ rule: linear(), tradesWaitMs: 0 });
    est.depth(book([['100', '4']]), T);
    est.orders([order('o1', 'buy', '100', '1', T + 100)], T + 100);
    est.depth(
      book([
        ['100', '6'],
        ['99', '1'],
      ]),
      T + 1_000,
    );
    est.depth(
      book([
        ['100', '4'],
        ['99', '1'],
      ]),
      T + 2_000,
    );
    assert.deepEqual(places(est), ['o1 buy 100 2.4/0.6']);
  });

  it('does not know a place below the range Depth shows until an answer reaches it', () => {
    const est = new QueueEstimator({ rule: linear(), tradesWaitMs: 0 });
    est.depth(
      book([
        ['100', '4'],
        ['99', '2'],
      ]),
      T,
    );
    est.orders([order('deep', 'buy', '95', '1', T + 100)], T + 100);
    assert.deepEqual(places(est), []);
    // The level holds 3 besides ours by then: taken as all ahead.
    est.depth(
      book([
        ['100', '4'],
        ['95', '4'],
      ]),
      T + 1_000,
    );
    assert.deepEqual(places(est), ['deep buy 95 3/0']);
  });

  it('joins a level Depth shows empty with nothing ahead, and empties the place when the level goes', () => {
    const est = new QueueEstimator({ rule: linear(), tradesWaitMs: 0 });
    est.depth(
      book([
        ['100', '4'],
        ['98', '2'],
      ]),
      T,
    );
    est.orders([order('o1', 'buy', '99', '1', T + 100)], T + 100);
    est.depth(
      book([
        ['100', '4'],
        ['99', '3'],
        ['98', '2'],
      ]),
      T + 1_000,
    );
    assert.deepEqual(places(est), ['o1 buy 99 0/2']);
    est.depth(
      book([
        ['100', '4'],
        ['98', '2'],
      ]),
      T + 2_000,
    );
    assert.deepEqual(places(est), ['o1 buy 99 0/0']);
  });

  it('lets a trade fill our earlier order before it reaches the volume ahead of our later one', () => {
    const est = new QueueEstimator({ rule: linear(), tradesWaitMs: 0 });
    est.depth(book([['100', '2']]), T);
    est.orders([order('first', 'buy', '100', '1', T + 100)], T + 100);
    est.depth(book([['100', '4']]), T + 200);
    est.orders(
      [order('first', 'buy', '100', '1', T + 100), order('second', 'buy', '100', '1', T + 300)],
      T + 300,
    );
    est.depth(book([['100', '5']]), T + 400);
    // first: 2 ahead, 1 behind (ours excluded); second: 3 ahead.
    assert.deepEqual(places(est), ['first buy 100 2/1', 'second buy 100 3/0']);
    // 3.5 trade: 2 market, 1 of first, 0.5 market between; second has 0.5 ahead left.
    est.trades([sell('100', '3.5', T + 500)], T + 600);
    assert.deepEqual(places(est), ['first buy 100 0/0.5', 'second buy 100 0.5/0']);
  });

  it('drops an order that is no longer resting, and lists each side best first', () => {
    const est = new QueueEstimator({ rule: parseQueueRule('power:3', 'rule'), tradesWaitMs: 0 });
    est.depth(
      book(
        [
          ['100', '1'],
          ['99', '1'],
        ],
        [
          ['101', '1'],
          ['102', '1'],
        ],
      ),
      T,
    );
    est.orders(
      [
        order('b2', 'buy', '99', '1', T + 100),
        order('a2', 'sell', '102', '1', T + 100),
        order('b1', 'buy', '100', '1', T + 100),
        order('a1', 'sell', '101', '1', T + 100),
        order('unacked', 'sell', '101', '1', 0),
      ],
      T + 100,
    );
    assert.deepEqual(
      est.positions().map((p) => `${p.txid} ${p.rule} ${p.source}`),
      ['b1 power:3 depth', 'b2 power:3 depth', 'a1 power:3 depth', 'a2 power:3 depth'],
    );
    est.orders([order('a1', 'sell', '101', '1', T + 100)], T + 200);
    assert.deepEqual(places(est), ['a1 sell 101 1/0']);
  });
});
