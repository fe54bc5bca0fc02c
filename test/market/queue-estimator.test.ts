/**
 * The queue estimator against the simulator's exact queue, step by step: after each scripted
 * change it is told what live trading would see (our orders, a Depth answer, the new trades,
 * sometimes a Level3 answer), and its place for our order is compared with the engine's queue.
 * Where the information determines the place (trades, joins behind, our fills, Level3) it must be
 * exact; where it does not (a cancel Depth alone shows), it must be the rule's split.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal, type QueuePosition } from '../../src/core/index.js';
import { parseQueueRule, QueueEstimator, type QueueRule } from '../../src/market/index.js';
import { queueLab } from './queue-lab.js';

const BID = '60000.0';

function setup(rule: QueueRule = parseQueueRule('linear', 'rule')) {
  const t = queueLab();
  const est = new QueueEstimator({ rule, tradesWaitMs: 30_000 });
  /** What live trading sees now: our orders, a Depth answer, the trades since (all known). */
  const see = async (options: { level3?: boolean } = {}): Promise<void> => {
    const now = await t.step();
    est.orders(t.lab.ourOrders(), now);
    est.depth(t.lab.depth(), now);
    if (options.level3 === true) est.level3(t.lab.level3(), now);
    est.trades(t.lab.newTrades(), now);
    // What the script does next happens after this answer.
    await t.step();
  };
  const place = (txid: string): QueuePosition | undefined =>
    est.positions().find((p) => p.txid === txid);
  /** The estimate equals the engine's queue, both sides. */
  const exact = (txid: string): void => {
    const truth = t.lab.exact(txid);
    const got = place(txid);
    assert.ok(truth !== undefined && got !== undefined, 'our order rests and has a place');
    assert.deepEqual(
      { ahead: got.ahead.toFixed(), behind: got.behind.toFixed() },
      { ahead: truth.ahead.toFixed(), behind: truth.behind.toFixed() },
    );
  };
  return { ...t, est, see, place, exact };
}

/** ahead and behind after `gone` leaves a queue of `ahead` and `behind` by the rule's shape `f`. */
function split(
  f: (x: Decimal) => Decimal,
  ahead: string,
  behind: string,
  gone: string,
): { ahead: string; behind: string } {
  const a = new Decimal(ahead);
  const b = new Decimal(behind);
  const front = new Decimal(gone).times(f(a)).div(f(a).plus(f(b)));
  return {
    ahead: a.minus(front).toFixed(),
    behind: b.minus(new Decimal(gone).minus(front)).toFixed(),
  };
}

const SHAPES: Record<string, (x: Decimal) => Decimal> = {
  linear: (x) => x,
  'power:2': (x) => x.times(x),
  log: (x) => x.plus(1).ln(),
};

describe('QueueEstimator against the simulator: determined steps are exact', () => {
  it('joins, trades at our price, our partial fill, a trade through our price', async () => {
    const s = setup();
    s.rest('a', 'buy', BID, '2');
    s.rest('b', 'buy', BID, '1');
    s.rest('far', 'buy', '59000.0', '1');
    await s.see();
    await s.step();
    const ours = s.rest('ours', 'buy', BID, '1');
    await s.see();
    // We join at the back: the whole level is ahead.
    s.exact(ours);
    assert.equal(s.place(ours)?.ahead.toFixed(), '3');

    s.rest('c', 'buy', BID, '1.5');
    await s.see();
    // The increase joined behind us.
    s.exact(ours);
    assert.equal(s.place(ours)?.behind.toFixed(), '1.5');

    s.take('sell', BID, '1');
    await s.see();
    // A trade at our price consumed the front.
    s.exact(ours);
    assert.equal(s.place(ours)?.ahead.toFixed(), '2');

    s.take('sell', BID, '2.5');
    await s.see();
    // 2 ahead, then half of ours: nothing ahead, all of behind still there.
    s.exact(ours);
    assert.deepEqual(
      [s.place(ours)?.ahead.toFixed(), s.place(ours)?.behind.toFixed()],
      ['0', '1.5'],
    );

    s.take('sell', '59000.0', '5');
    await s.see();
    // Through our price: our order filled and left the book, and the estimator dropped it.
    assert.equal(s.lab.exact(ours), undefined);
    assert.equal(s.place(ours), undefined);
  });

  it('sets the place of a Level3 answer exactly, ours flagged, and is source level3', async () => {
    const s = setup();
    const a = s.rest('a', 'buy', BID, '2');
    await s.see();
    const ours = s.rest('ours', 'buy', BID, '1');
    s.rest('c', 'buy', BID, '1.5');
    await s.see();
    // A cancel ahead and as much joining behind: Depth sees the level unchanged.
    s.cancel(a);
    s.rest('f', 'buy', BID, '2');
    await s.see();
    assert.equal(s.place(ours)?.ahead.toFixed(), '2');
    assert.equal(s.lab.exact(ours)?.ahead.toFixed(), '0');
    await s.see({ level3: true });
    s.exact(ours);
    assert.equal(s.place(ours)?.source, 'level3');
    assert.equal(s.place(ours)?.rule, 'linear');
  });

  it('folds trades that arrive after the Depth answer that shows them, in their time order', async () => {
    const s = setup();
    s.rest('a', 'buy', BID, '2');
    await s.see();
    const ours = s.rest('ours', 'buy', BID, '1');
    s.rest('c', 'buy', BID, '1.5');
    await s.see();
    s.exact(ours);
    s.take('sell', BID, '1');
    const depthAt = await s.step();
    s.est.orders(s.lab.ourOrders(), depthAt);
    s.est.depth(s.lab.depth(), depthAt);
    // Before the trade is known, the decrease counts as cancels: 1 x 2/3.5 from ahead.
    assert.deepEqual(
      {
        ahead: s.place(ours)?.ahead.toFixed(),
        behind: s.place(ours)?.behind.toFixed(),
      },
      split(SHAPES.linear as (x: Decimal) => Decimal, '2', '1.5', '1'),
    );
    // The trade comes with the next Trades answer; it printed before that Depth answer.
    const tradesAt = await s.step(5_000);
    s.est.trades(s.lab.newTrades(), tradesAt);
    s.exact(ours);
    assert.equal(s.est.stats.lateTrades, 0);
  });

  it('takes a fill the tracker reports before the trades as the front consumed', async () => {
    const s = setup();
    s.rest('a', 'buy', BID, '2');
    await s.see();
    const ours = s.rest('ours', 'buy', BID, '1');
    s.rest('c', 'buy', BID, '1.5');
    await s.see();
    s.take('sell', BID, '2.4');
    const now = await s.step();
    s.est.orders(s.lab.ourOrders(), now);
    s.est.depth(s.lab.depth(), now);
    s.exact(ours);
    // And the trades, when they come, change nothing.
    s.est.trades(s.lab.newTrades(), await s.step());
    s.exact(ours);
  });
});

for (const name of Object.keys(SHAPES)) {
  const f = SHAPES[name] as (x: Decimal) => Decimal;
  describe(`QueueEstimator against the simulator: cancels Depth shows, rule ${name}`, () => {
    it('splits a cancel ahead by the rule, then Level3 sets the place exactly', async () => {
      const s = setup(parseQueueRule(name, 'rule'));
      const a = s.rest('a', 'buy', BID, '2');
      await s.see();
      const ours = s.rest('ours', 'buy', BID, '1');
      s.rest('c', 'buy', BID, '1.5');
      await s.see();
      s.exact(ours);
      s.cancel(a);
      await s.see();
      assert.deepEqual(
        { ahead: s.place(ours)?.ahead.toFixed(), behind: s.place(ours)?.behind.toFixed() },
        split(f, '2', '1.5', '2'),
      );
      await s.see({ level3: true });
      s.exact(ours);
    });

    it('splits a cancel behind by the rule, then Level3 sets the place exactly', async () => {
      const s = setup(parseQueueRule(name, 'rule'));
      s.rest('a', 'buy', BID, '2');
      await s.see();
      const ours = s.rest('ours', 'buy', BID, '1');
      const c = s.rest('c', 'buy', BID, '1.5');
      s.rest('d', 'buy', BID, '1');
      await s.see();
      s.exact(ours);
      s.cancel(c);
      await s.see();
      assert.deepEqual(
        { ahead: s.place(ours)?.ahead.toFixed(), behind: s.place(ours)?.behind.toFixed() },
        split(f, '2', '2.5', '1.5'),
      );
      await s.see({ level3: true });
      s.exact(ours);
      // A trade after the Level3 answer moves the exact place on exactly.
      s.take('sell', BID, '0.5');
      await s.see();
      s.exact(ours);
    });
  });
}
