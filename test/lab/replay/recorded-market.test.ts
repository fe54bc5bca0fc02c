import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../../../src/core/index.js';
import { fromAhead, parseQueueRule } from '../../../src/market/index.js';
import { levels, recordedOrders, testVenue } from './venue-support.js';

const ASKS = levels(['60010.0', '3']);
const trade = (side: 'buy' | 'sell', price: string, volume: string) => ({
  side,
  price: new Decimal(price),
  volume: new Decimal(volume),
});

describe('RecordedMarket', () => {
  it('fills our bid only once recorded trades consumed the volume ahead of it', () => {
    const t = testVenue();
    const market = t.venue.market;
    market.applyDepth(t.pair, levels(['60000.0', '2']), ASKS);
    t.place('buy', '60000.0', '0.5');
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 2', 'ours 0.5']);

    market.applyTrade(t.pair, trade('sell', '60000.0', '1.5'));
    assert.deepEqual(t.fills(), []);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 0.5', 'ours 0.5']);

    market.applyTrade(t.pair, trade('sell', '60000.0', '0.7'));
    assert.deepEqual(t.fills(), ['buy 0.2@60000']);
    assert.deepEqual(t.queue('buy', '60000.0'), ['ours 0.3']);
  });

  it('fills our bid at once, whole, when a recorded trade goes through its price', () => {
    const t = testVenue();
    const market = t.venue.market;
    market.applyDepth(t.pair, levels(['60000.0', '2'], ['59990.0', '1']), ASKS);
    t.place('buy', '60000.0', '0.5');
    market.applyTrade(t.pair, trade('sell', '59990.0', '0.1'));
    assert.deepEqual(t.fills(), ['buy 0.5@60000']);
    assert.deepEqual(t.queue('buy', '60000.0'), []);
    // The print's own volume still took the level it printed at.
    assert.deepEqual(t.queue('buy', '59990.0'), ['recorded 0.9']);
    assert.equal(market.stats.tradeThroughs, 1);
  });

  it('moves us forward by the share of a cancel that was ahead of us', () => {
    const t = testVenue({ queueRule: parseQueueRule('linear', 'market.queue.rule') });
    const market = t.venue.market;
    market.applyDepth(t.pair, levels(['60000.0', '6']), ASKS);
    t.place('buy', '60000.0', '1');
    // The recording never holds our replay order: its 8 are all recorded participants.
    market.applyDepth(t.pair, levels(['60000.0', '8']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 6', 'ours 1', 'recorded 2']);
    // 4 of the 8 go: 6/8 of them from ahead of us, 2/8 from behind.
    market.applyDepth(t.pair, levels(['60000.0', '4']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 3', 'ours 1', 'recorded 1']);
  });

  it('splits a cancel by the configured rule, the live estimator’s (log by default)', () => {
    const t = testVenue();
    const market = t.venue.market;
    market.applyDepth(t.pair, levels(['60000.0', '6']), ASKS);
    t.place('buy', '60000.0', '1');
    market.applyDepth(t.pair, levels(['60000.0', '8']), ASKS);
    market.applyDepth(t.pair, levels(['60000.0', '4']), ASKS);
    // ln 7 / (ln 7 + ln 3) of the 4 from ahead, to the pair's 8 lot decimals.
    const front = fromAhead(
      parseQueueRule('log', 'rule'),
      new Decimal(6),
      new Decimal(2),
      new Decimal(4),
    );
    const ahead = new Decimal(6).minus(front.toDecimalPlaces(8));
    assert.equal(ahead.toFixed(), '3.44339523');
    assert.deepEqual(t.queue('buy', '60000.0'), [
      `recorded ${ahead.toFixed()}`,
      'ours 1',
      `recorded ${new Decimal(4).minus(ahead).toFixed()}`,
    ]);
  });

  it('applies an imported book change to the levels it lists only; a snapshot replaces the book', () => {
    const t = testVenue({ queueRule: parseQueueRule('linear', 'market.queue.rule') });
    const market = t.venue.market;
    market.applyBookUpdate(t.pair, levels(['60000.0', '6'], ['59999.0', '1']), ASKS, true);
    t.place('buy', '60000.0', '1');
    // A change of one level: 2 of its 6 go (linear: all from ahead, none is behind), and the
    // level it does not list stays.
    market.applyBookUpdate(t.pair, levels(['60000.0', '4']), [], false);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 4', 'ours 1']);
    assert.deepEqual(t.queue('buy', '59999.0'), ['recorded 1']);
    assert.deepEqual(t.queue('sell', '60010.0'), ['recorded 3']);
    // Amount 0 removes a level; a new one joins.
    market.applyBookUpdate(t.pair, levels(['59999.0', '0'], ['59998.0', '2']), [], false);
    assert.deepEqual(t.queue('buy', '59999.0'), []);
    assert.deepEqual(t.queue('buy', '59998.0'), ['recorded 2']);
    // A snapshot: what it does not list goes (our order stays, it is not recorded).
    market.applyBookUpdate(t.pair, levels(['59990.0', '1']), levels(['60005.0', '1']), true);
    assert.deepEqual(t.queue('buy', '60000.0'), ['ours 1']);
    assert.deepEqual(t.queue('buy', '59998.0'), []);
    assert.deepEqual(t.queue('sell', '60010.0'), []);
    assert.deepEqual(t.queue('sell', '60005.0'), ['recorded 1']);
    assert.equal(market.stats.bookUpdates, 4);
    assert.equal(market.stats.depthUpdates, 0);
  });

  it('keeps a level where none of ours rests as one recorded order', () => {
    const t = testVenue();
    const market = t.venue.market;
    market.applyDepth(t.pair, levels(['60000.0', '6'], ['59999.0', '1']), ASKS);
    market.applyDepth(t.pair, levels(['60000.0', '4'], ['59998.0', '2']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 4']);
    assert.deepEqual(t.queue('buy', '59999.0'), []);
    assert.deepEqual(t.queue('buy', '59998.0'), ['recorded 2']);
  });

  it('puts an edited order at the back of its queue with a new id', () => {
    const t = testVenue();
    const market = t.venue.market;
    market.applyDepth(t.pair, levels(['60000.0', '2']), ASKS);
    const txid = t.place('buy', '60000.0', '0.5');
    market.applyDepth(t.pair, levels(['60000.0', '5']), ASKS);
    const order = t.venue.ctx.engine.order(txid);
    assert.ok(order);
    const edited = t.venue.ctx.engine.edit(t.ours, order, {
      volume: new Decimal('0.4'),
      post: false,
    });
    assert.notEqual(edited.txid, txid);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 2', 'recorded 3', 'ours 0.4']);
  });

  it('takes a recorded level below the order minimum as it was', () => {
    const t = testVenue();
    t.venue.market.applyDepth(t.pair, levels(['60000.0', '0.00001']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 0.00001']);
  });

  it("leaves out the live session's own orders from the recorded volume", () => {
    const t = testVenue();
    const market = t.venue.market;
    market.setOwnOrders([
      { pair: t.pair, side: 'buy', price: new Decimal('60000.0'), volume: new Decimal('1') },
    ]);
    market.applyDepth(t.pair, levels(['60000.0', '3']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 2']);
  });

  it("replaces one pair's own orders with that pair's OwnOrders row, leaving the others", () => {
    const t = testVenue();
    const market = t.venue.market;
    // Another pair of the session (this venue lists XBTUSD only): just its id matters here.
    const eth = { ...t.pair, id: 'XETHZUSD' };
    market.setOwnOrders([
      { pair: t.pair, side: 'buy', price: new Decimal('60000.0'), volume: new Decimal('1') },
      { pair: eth, side: 'buy', price: new Decimal('3000.0'), volume: new Decimal('1') },
    ]);
    // XBTUSD's own bid moved to 59999.0; ETHUSD's row did not come yet.
    market.setOwnOrders(
      [{ pair: t.pair, side: 'buy', price: new Decimal('59999.0'), volume: new Decimal('1') }],
      t.pair,
    );
    market.applyDepth(t.pair, levels(['60000.0', '3'], ['59999.0', '2']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 3']);
    assert.deepEqual(t.queue('buy', '59999.0'), ['recorded 1']);
  });

  it('mirrors Level3 orders by id: a cancel moves us forward by exactly its volume', () => {
    const t = testVenue();
    const market = t.venue.market;
    const ask = recordedOrders(['A1', '60010.0', '1']);
    market.applyLevel3(t.pair, recordedOrders(['B1', '60000.0', '2'], ['B2', '60000.0', '3']), ask);
    t.place('buy', '60000.0', '0.5');
    market.applyLevel3(
      t.pair,
      recordedOrders(['B1', '60000.0', '2'], ['B2', '60000.0', '3'], ['B3', '60000.0', '4']),
      ask,
    );
    assert.deepEqual(t.queue('buy', '60000.0'), [
      'recorded 2',
      'recorded 3',
      'ours 0.5',
      'recorded 4',
    ]);
    // B1 (front) cancelled, B2 shrank, B3 (behind us) cancelled: exact, no proportion.
    market.applyLevel3(t.pair, recordedOrders(['B2', '60000.0', '1']), ask);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 1', 'ours 0.5']);
    // Depth answers of a pair mirrored from Level3 no longer move its book.
    market.applyDepth(t.pair, levels(['60000.0', '9']), ASKS);
    assert.deepEqual(t.queue('buy', '60000.0'), ['recorded 1', 'ours 0.5']);
  });

  it('sets the exchange status as recorded', () => {
    const t = testVenue();
    t.venue.market.setMode('cancel_only');
    assert.equal(t.venue.ctx.status.mode, 'cancel_only');
  });
});

describe('SimTransport', () => {
  it('refuses order entry past the ratecount as the exchange does, and counts it', async () => {
    const t = testVenue();
    const client = t.client();
    t.venue.market.applyDepth(t.pair, levels(['59000.0', '1']), ASKS);
    const add = () =>
      client
        .addOrder({
          pair: 'XBTUSD',
          type: 'buy',
          ordertype: 'limit',
          price: '58000.0',
          volume: '0.001',
        })
        .then(
          () => 'ok',
          (err: Error) => err.message,
        );
    const answers: string[] = [];
    // The starter tier's ratecount holds 60 points; AddOrder costs 1.
    for (let i = 0; i < 61; i++) answers.push(await add());
    assert.equal(answers.filter((a) => a === 'ok').length, 60);
    assert.match(answers[60] ?? '', /EOrder:Rate limit exceeded/);
    assert.deepEqual(Object.fromEntries(t.venue.transport.refusals.get('XBTUSD') ?? []), {
      'EOrder:Rate limit exceeded': 1,
    });
  });

  it("keeps the recorded participants' history bounded however many trades replay", () => {
    const t = testVenue();
    const market = t.venue.market;
    const { accounts, engine } = t.venue.ctx;
    // 3,000 recorded trades against a level that is refilled: 6,000 fills, 12,000 ledger entries.
    for (let i = 0; i < 3000; i++) {
      market.applyDepth(t.pair, levels(['60000.0', '1']), ASKS);
      market.applyTrade(t.pair, trade('sell', '60000.0', '0.1'));
    }
    assert.equal(market.stats.tradesApplied, 3000);
    for (const key of ['__recorded_bids__', '__recorded_taker__']) {
      const account = accounts.get(key);
      assert.ok(account);
      assert.ok(account.wallet.ledger.length <= 2000, `${key}: ${account.wallet.ledger.length}`);
      assert.ok(engine.trades(account).length <= 2000);
      // The 30-day volume (the fee tier) still counts every fill: 3,000 x 0.1 x 60,000 USD.
      assert.equal(engine.volumeUsd(account).toFixed(), '18000000');
    }
  });
});
