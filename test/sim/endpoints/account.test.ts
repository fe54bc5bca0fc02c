import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal, ExchangeError, ManualClock, type SpotClient } from '../../../src/index.js';
import { parseAddOrder } from '../../../src/sim/endpoints/order-params.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import type { Permission } from '../../../src/sim/state/permissions.js';
import { errorsOf, signedPost } from '../../support/signed-request.js';
import { startTestSim, type KeyPair, type TestSim } from '../../support/sim.js';

async function rejectsWith(p: Promise<unknown>, raw: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof ExchangeError, `expected an ExchangeError, got ${String(err)}`);
    assert.equal(err.raw, raw);
    return true;
  });
}

interface TradeRow {
  ordertxid: string;
  postxid: string;
  pair: string;
  time: number;
  type: string;
  ordertype: string;
  price: string;
  cost: string;
  fee: string;
  vol: string;
  margin: string;
  misc: string;
  ledgers: string[];
  trade_id: number;
  maker: boolean;
}

interface LedgerRow {
  refid: string;
  time: number;
  type: string;
  subtype: string;
  aclass: string;
  asset: string;
  amount: string;
  fee: string;
  balance: string;
}

describe('account endpoints over HTTP', () => {
  const clock = new ManualClock();
  let sim: TestSim;
  before(async () => {
    // Time-driven work also runs before each request; a long tick keeps clock.advance cheap.
    sim = await startTestSim({ clock, config: { tick_ms: 60_000 } });
  });
  after(() => sim.close());

  function fresh(permissions?: Permission[]): {
    client: SpotClient;
    key: KeyPair;
    account: Account;
  } {
    const key = sim.addAccount(permissions === undefined ? {} : { permissions });
    const account = sim.ctx.accounts.get(key.apiKey);
    assert.ok(account);
    return { client: sim.client({ key }), key, account };
  }

  async function buy(client: SpotClient, price: string, volume = '1'): Promise<string> {
    const res = await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      volume,
      price,
    });
    return res.result.txid?.[0] ?? '';
  }

  it('Balance and BalanceEx: every asset, at its decimals; hold_trade is what open orders hold', async () => {
    const { client, account } = fresh();
    assert.deepEqual((await client.balance()).result, {
      ZUSD: '1000000.0000',
      XXBT: '100.0000000000',
      XETH: '1000.0000000000',
    });
    const txid = await buy(client, '30000', '2');
    const sell = await client.addOrder({
      pair: 'XBTUSD',
      type: 'sell',
      ordertype: 'limit',
      volume: '1.5',
      price: '90000',
    });
    const ex = (await client.balanceEx()).result;
    assert.equal(ex['ZUSD']?.balance, '1000000.0000');
    const usdHold = new Decimal(ex['ZUSD']?.hold_trade ?? 'NaN');
    // Two XBT at 30000, plus at most the fee reserve.
    assert.ok(usdHold.gte(60000) && usdHold.lte(60000 * 1.01), `ZUSD hold ${usdHold.toFixed()}`);
    assert.equal(usdHold.toFixed(), account.wallet.hold('ZUSD').toFixed());
    const xbtHold = new Decimal(ex['XXBT']?.hold_trade ?? 'NaN');
    assert.ok(xbtHold.gte('1.5') && xbtHold.lte('1.52'), `XXBT hold ${xbtHold.toFixed()}`);

    await client.cancelOrder({ txid });
    await client.cancelOrder({ txid: sell.result.txid?.[0] ?? '' });
    const after = (await client.balanceEx()).result;
    assert.equal(after['ZUSD']?.hold_trade, '0.0000');
    assert.equal(after['XXBT']?.hold_trade, '0.0000000000');
  });

  it('CreditLines: balances with zero credit', async () => {
    const { client } = fresh();
    const res = (await client.creditLines()).result;
    assert.deepEqual(res.asset_details['ZUSD'], {
      balance: '1000000.0000',
      hold_trade: '0.0000',
      credit: '0.0000',
      credit_used: '0.0000',
    });
    assert.equal(res.limits_monitor.total_credit_usd, '0.0000');
    assert.equal(res.limits_monitor.debt_to_equity, '0.0000');
  });

  it('TradeBalance values balances and open orders in the asked asset', async () => {
    const { client } = fresh();
    const mark = (pair: string) => {
      const p = sim.ctx.markets.requirePair(pair);
      return (
        sim.ctx.engine.lastTrade(p)?.price ??
        new Decimal(sim.ctx.background.fairValue(p.id) ?? p.initial_price)
      );
    };
    const eb = new Decimal(1_000_000)
      .plus(mark('XBTUSD').times(100))
      .plus(mark('ETHUSD').times(1000));
    const tb0 = (await client.tradeBalance()).result;
    assert.equal(tb0.eb, eb.toFixed(4));
    assert.equal(tb0.tb, eb.toFixed(4));
    assert.equal(tb0.e, eb.toFixed(4));
    assert.equal(tb0.m, '0.0000');
    assert.equal(tb0.uv, '0.0000');
    await buy(client, '30000', '2');
    const tb1 = (await client.tradeBalance()).result;
    assert.equal(tb1.uv, '60000.0000');
    const inXbt = (await client.tradeBalance({ asset: 'XBT' })).result;
    const ebXbt = new Decimal(1)
      .div(mark('XBTUSD'))
      .times(1_000_000)
      .plus(100)
      .plus(mark('ETHXBT').times(1000));
    assert.equal(inXbt.eb, ebXbt.toDecimalPlaces(10).toFixed(10));
    await rejectsWith(client.tradeBalance({ asset: 'DOGE' }), 'EQuery:Unknown asset');
  });

  it('OpenOrders filters by userref and shows trades only when asked', async () => {
    const { client } = fresh();
    await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '1',
      price: '29000',
      userref: 1,
    });
    const two = await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '1',
      price: '29001',
      userref: 2,
    });
    const open = (await client.openOrders({ userref: 2 })).result.open;
    assert.deepEqual(Object.keys(open), two.result.txid);
  });

  it('ClosedOrders pages by 50, newest first, with the total count', async () => {
    const { client, account } = fresh();
    const ctx = sim.ctx;
    const txids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const { spec } = parseAddOrder(
        {
          pair: 'XBTUSD',
          type: 'buy',
          ordertype: 'limit',
          volume: '0.01',
          price: String(20000 + i),
          userref: i % 2,
        },
        ctx.markets,
        clock.now(),
      );
      const order = ctx.engine.place(account, spec);
      await clock.advance(1_000);
      ctx.engine.cancel(account, order);
      txids.push(order.txid);
    }
    const newestFirst = [...txids].reverse();
    const page1 = (await client.closedOrders()).result;
    assert.equal(page1.count, 60);
    assert.deepEqual(Object.keys(page1.closed), newestFirst.slice(0, 50));
    const page2 = (await client.closedOrders({ ofs: 50 })).result;
    assert.equal(page2.count, 60);
    assert.deepEqual(Object.keys(page2.closed), newestFirst.slice(50));

    const odd = (await client.closedOrders({ userref: 1 })).result;
    assert.equal(odd.count, 30);

    // start (exclusive) given as an order id: that order's opentm.
    const tenth = txids[9] ?? '';
    const since = (await client.closedOrders({ start: tenth, closetime: 'open' })).result;
    assert.equal(since.count, 50);
    assert.deepEqual(Object.keys(since.closed), newestFirst.slice(0, 50));
    const t0 = ctx.engine.order(txids[0] ?? '')?.opentmMs ?? 0;
    const upTo = (await client.closedOrders({ end: (t0 + 4_000) / 1000, closetime: 'open' }))
      .result;
    assert.deepEqual(Object.keys(upTo.closed), txids.slice(0, 5).reverse());
  });

  it('QueryOrders needs the query permission that matches each order’s status', async () => {
    const owner = fresh();
    const openTxid = await buy(owner.client, '28000');
    const closedTxid = await buy(owner.client, '28001');
    await owner.client.cancelOrder({ txid: closedTxid });
    const both = (await owner.client.queryOrders({ txid: [openTxid, closedTxid], trades: true }))
      .result;
    assert.equal(both[openTxid]?.status, 'open');
    assert.equal(both[closedTxid]?.status, 'canceled');

    // The same account behind keys with narrower permissions.
    const openOnly: Permission[] = ['orders-query-open'];
    const closedOnly: Permission[] = ['orders-query-closed'];
    owner.account.permissions = new Set(openOnly);
    assert.ok((await owner.client.queryOrders({ txid: openTxid })).result[openTxid]);
    await rejectsWith(owner.client.queryOrders({ txid: closedTxid }), 'EGeneral:Permission denied');
    owner.account.permissions = new Set(closedOnly);
    assert.ok((await owner.client.queryOrders({ txid: closedTxid })).result[closedTxid]);
    await rejectsWith(owner.client.queryOrders({ txid: openTxid }), 'EGeneral:Permission denied');
    owner.account.permissions = new Set(['funds-query']);
    await rejectsWith(owner.client.queryOrders({ txid: openTxid }), 'EGeneral:Permission denied');

    const other = fresh();
    await rejectsWith(other.client.queryOrders({ txid: openTxid }), 'EOrder:Unknown order');
  });

  it('a fill shows in TradesHistory, QueryTrades, Ledgers and TradeVolume, agreeing with Balance', async () => {
    const maker = fresh();
    const taker = fresh();
    const sell = await maker.client.addOrder({
      pair: 'XBTUSD',
      type: 'sell',
      ordertype: 'limit',
      volume: '1',
      // Above every other resting order of this file, so only the taker below crosses it.
      price: '95000',
    });
    const makerTxid = sell.result.txid?.[0] ?? '';
    await clock.advance(1_000);
    const takerTxid = await buy(taker.client, '95000');

    for (const [side, who, txid, isMaker] of [
      ['sell', maker, makerTxid, true],
      ['buy', taker, takerTxid, false],
    ] as const) {
      const history = (await who.client.tradesHistory()).result as {
        trades: Record<string, TradeRow>;
        count: number;
      };
      assert.equal(history.count, 1);
      const first = Object.entries(history.trades)[0];
      assert.ok(first);
      const [tradeId, trade] = first;
      assert.equal(trade.ordertxid, txid);
      assert.equal(trade.postxid, isMaker ? takerTxid : makerTxid);
      assert.equal(trade.pair, 'XXBTZUSD');
      assert.equal(trade.type, side);
      assert.equal(trade.ordertype, 'limit');
      assert.equal(trade.price, '95000.0');
      assert.equal(trade.vol, '1.00000000');
      assert.equal(trade.cost, '95000.00000');
      assert.equal(trade.margin, '0.00000');
      assert.equal(trade.maker, isMaker);
      assert.equal(typeof trade.trade_id, 'number');
      assert.ok(new Decimal(trade.fee).gt(0));

      const queried = (await who.client.queryTrades({ txid: tradeId })).result as Record<
        string,
        TradeRow
      >;
      assert.deepEqual(queried[tradeId], trade);

      const ledger = (await who.client.ledgers({ type: 'trade' })).result as {
        ledger: Record<string, LedgerRow>;
        count: number;
      };
      assert.deepEqual(Object.keys(ledger.ledger).sort(), [...trade.ledgers].sort());
      const balances = (await who.client.balance()).result;
      for (const row of Object.values(ledger.ledger)) {
        assert.equal(row.refid, tradeId);
        assert.equal(row.aclass, 'currency');
        // The newest entry per asset carries the balance Balance reports.
        assert.equal(row.balance, balances[row.asset]);
        const initial = row.asset === 'ZUSD' ? '1000000' : '100';
        assert.equal(
          new Decimal(initial).plus(row.amount).minus(row.fee).toFixed(),
          new Decimal(row.balance).toFixed(),
        );
      }
      const usd = Object.values(ledger.ledger).find((r) => r.asset === 'ZUSD');
      const xbt = Object.values(ledger.ledger).find((r) => r.asset === 'XXBT');
      assert.equal(new Decimal(xbt?.amount ?? 'NaN').abs().toFixed(), '1');
      assert.equal(new Decimal(usd?.amount ?? 'NaN').abs().toFixed(), '95000');

      const closed = (await who.client.closedOrders({ trades: true })).result.closed[txid];
      assert.equal(closed?.status, 'closed');
      assert.equal(closed?.vol_exec, '1.00000000');
      assert.equal(closed?.price, '95000.0');
      assert.deepEqual(closed?.trades, [tradeId]);

      const volume = (await who.client.tradeVolume({ pair: 'XBTUSD' })).result;
      assert.equal(volume.currency, 'ZUSD');
      assert.equal(volume.volume, '95000.0000');
      assert.deepEqual(volume.fees?.['XXBTZUSD'], {
        fee: '0.2400',
        minfee: '0.1600',
        maxfee: '0.4000',
        nextfee: '0.2200',
        nextvolume: '100000.0000',
        tiervolume: '50000.0000',
      });
      assert.equal((volume.fees_maker?.['XXBTZUSD'] as { fee: string }).fee, '0.1400');
      await clock.advance(10_000);
    }
  });

  it('Ledgers pages and filters by asset; QueryLedgers reads entries by id', async () => {
    const { client, account, key } = fresh();
    for (let i = 1; i <= 3; i++) {
      account.wallet.post({
        refid: `ADJ-${i}`,
        timeMs: clock.now(),
        type: 'adjustment',
        asset: 'XETH',
        amount: new Decimal(i),
      });
      await clock.advance(1_000);
    }
    const eth = (await client.ledgers({ asset: 'ETH' })).result as {
      ledger: Record<string, LedgerRow>;
      count: number;
    };
    // The funding adjustment plus the three above, newest first.
    assert.equal(eth.count, 4);
    const rows = Object.values(eth.ledger);
    assert.deepEqual(
      rows.map((r) => r.balance),
      ['1006.0000000000', '1003.0000000000', '1001.0000000000', '1000.0000000000'],
    );
    const paged = (await client.ledgers({ asset: 'XETH', ofs: 3 })).result as {
      ledger: Record<string, LedgerRow>;
    };
    assert.equal(Object.keys(paged.ledger).length, 1);

    const [id] = Object.keys(eth.ledger);
    const queried = await signedPost(sim.url, 'QueryLedgers', { id }, key);
    assert.deepEqual(errorsOf(queried), []);
    assert.deepEqual((queried.json as { result: Record<string, LedgerRow> }).result, {
      [id ?? '']: eth.ledger[id ?? ''],
    });
    const unknown = await signedPost(sim.url, 'QueryLedgers', { id: 'LNOPE' }, key);
    assert.deepEqual(errorsOf(unknown), ['EGeneral:Invalid arguments:id']);
  });
});
