import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from '../../../src/core/index.js';
import type { OrderType, SimOrder } from '../../../src/sim/engine/types.js';
import { SimError } from '../../../src/sim/errors.js';
import type { SimPair } from '../../../src/sim/markets.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { harness, px, spec, type Harness, type SpecInput } from './support.js';

/**
 * Random sequences of order entry, cancels, edits, clock ticks and trading switched on and off,
 * over three thinly funded accounts on one pair, with the market's invariants checked after
 * every step.
 */

const ASSETS = ['XXBT', 'ZUSD'] as const;

const TYPES: OrderType[] = [
  'limit',
  'limit',
  'limit',
  'limit',
  'market',
  'stop-loss',
  'take-profit',
  'stop-loss-limit',
  'take-profit-limit',
  'trailing-stop',
  'trailing-stop-limit',
];

type Action =
  | {
      kind: 'place';
      acct: number;
      side: 'buy' | 'sell';
      type: OrderType;
      lots: number;
      off: number;
      off2: number;
      rel: boolean;
      post: boolean;
      fee: 0 | 1 | 2;
      tif: 'GTC' | 'IOC' | 'GTD';
      iceberg: boolean;
      stp: 'cancel-newest' | 'cancel-oldest' | 'cancel-both';
      close: boolean;
      start: boolean;
      nompp: boolean;
    }
  | { kind: 'cancel'; acct: number; idx: number }
  | { kind: 'cancelAll'; acct: number }
  | {
      kind: 'edit';
      acct: number;
      idx: number;
      lots: number | undefined;
      off: number | undefined;
      post: boolean;
    }
  | { kind: 'tick'; ms: number }
  | { kind: 'trading'; on: boolean };

const acct = fc.integer({ min: 0, max: 2 });
const lots = fc.integer({ min: 1, max: 40 });
const off = fc.integer({ min: -4, max: 4 });

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      acct,
      side: fc.constantFrom('buy' as const, 'sell' as const),
      type: fc.constantFrom(...TYPES),
      lots,
      off,
      off2: off,
      rel: fc.boolean(),
      post: fc.boolean(),
      fee: fc.constantFrom(0 as const, 1 as const, 2 as const),
      tif: fc.constantFrom(...(['GTC', 'GTC', 'GTC', 'GTC', 'IOC', 'GTD'] as const)),
      iceberg: fc.boolean(),
      stp: fc.constantFrom(
        'cancel-newest' as const,
        'cancel-oldest' as const,
        'cancel-both' as const,
      ),
      close: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      start: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
      nompp: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('cancel' as const), acct, idx: fc.nat(10) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelAll' as const), acct }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      acct,
      idx: fc.nat(10),
      lots: fc.option(lots, { nil: undefined }),
      off: fc.option(off, { nil: undefined }),
      post: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('tick' as const),
      ms: fc.integer({ min: 0, max: 3000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('trading' as const),
      on: fc.integer({ min: 0, max: 2 }).map((n) => n > 0),
    }),
  },
);

const volumeOf = (n: number): string => new Decimal(n).div(1000).toFixed();
const priceOf = (o: number): string => new Decimal(60000).plus(o * 5).toFixed();

function toSpec(h: Harness, a: Extract<Action, { kind: 'place' }>): SpecInput {
  const base = {
    pair: h.btc,
    side: a.side,
    type: a.type,
    volume: volumeOf(a.lots),
    fcib: a.fee === 1,
    fciq: a.fee === 2,
    stptype: a.stp,
    tif: a.tif,
    ...(a.tif === 'GTD' ? { expiretmMs: h.clock.now() + 1000 + a.lots * 100 } : {}),
    ...(a.start && a.type !== 'market' ? { starttmMs: h.clock.now() + 500 } : {}),
  };
  const rel = (o: number): string => `${o < 0 ? '-' : '+'}${Math.abs(o) * 5}`;
  switch (a.type) {
    case 'market':
      return {
        ...base,
        nompp: a.nompp,
        ...(a.close ? { close: { ordertype: 'limit', price: '#10' } } : {}),
      };
    case 'limit':
      return {
        ...base,
        price: a.rel ? rel(a.off) : priceOf(a.off),
        post: a.post && a.tif !== 'IOC',
        ...(a.iceberg && a.lots > 2 ? { displayvol: volumeOf(Math.floor(a.lots / 3)) } : {}),
        ...(a.close ? { close: { ordertype: 'stop-loss', price: '#50' } } : {}),
      };
    case 'trailing-stop':
      return { ...base, price: `+${(Math.abs(a.off) + 1) * 5}` };
    case 'trailing-stop-limit':
      return { ...base, price: `+${(Math.abs(a.off) + 1) * 5}`, price2: rel(a.off2) };
    case 'stop-loss-limit':
    case 'take-profit-limit':
      return { ...base, price: priceOf(a.off), price2: a.rel ? rel(a.off2) : priceOf(a.off2) };
    default:
      return { ...base, price: a.rel ? `#${Math.abs(a.off) * 5}` : priceOf(a.off) };
  }
}

async function apply(h: Harness, accounts: Account[], a: Action): Promise<void> {
  const pick = (acctIdx: number, idx: number): [Account, SimOrder | undefined] => {
    const account = accounts[acctIdx] as Account;
    const open = h.engine.openOrders(account);
    return [account, open.length === 0 ? undefined : open[idx % open.length]];
  };
  try {
    switch (a.kind) {
      case 'place':
        h.engine.place(accounts[a.acct] as Account, spec(toSpec(h, a)));
        break;
      case 'cancel': {
        const [account, order] = pick(a.acct, a.idx);
        if (order) h.engine.cancel(account, order);
        break;
      }
      case 'cancelAll':
        h.engine.cancelAll(accounts[a.acct] as Account);
        break;
      case 'edit': {
        const [account, order] = pick(a.acct, a.idx);
        if (!order) break;
        h.engine.edit(account, order, {
          ...(a.lots === undefined ? {} : { volume: new Decimal(volumeOf(a.lots)) }),
          ...(a.off === undefined || order.spec.ordertype !== 'limit'
            ? {}
            : { price: px(priceOf(a.off)) }),
          post: a.post && order.spec.ordertype === 'limit' && order.spec.timeinforce !== 'IOC',
        });
        break;
      }
      case 'tick':
        await h.advance(a.ms);
        break;
      case 'trading':
        h.canTrade = a.on;
        break;
    }
  } catch (err) {
    if (!(err instanceof SimError)) throw err;
  }
}

/** What holds.ts says an order holds, recomputed from the order as clients see it. */
function expectedHold(pair: SimPair, o: SimOrder): { asset: string; amount: Decimal } {
  let pct = 0;
  for (const [, p] of [...pair.fees, ...pair.fees_maker]) pct = Math.max(pct, p);
  const withFee = new Decimal(pct).div(100).plus(1);
  const { side, flags } = o.spec;
  const inBase = flags.fcib || (!flags.fciq && side === 'sell');
  const remaining = o.spec.volume.minus(o.volExec);
  if (side === 'sell')
    return { asset: pair.base, amount: inBase ? remaining.times(withFee) : remaining };
  const price = o.limitPrice ?? o.stopPrice;
  assert.ok(price, `${o.txid} (${o.spec.ordertype}) holds quote without a price`);
  const cost = remaining.times(price);
  return { asset: pair.quote, amount: inBase ? cost : cost.times(withFee) };
}

function checkInvariants(
  h: Harness,
  accounts: Account[],
  initial: Map<string, Decimal>,
  step: string,
): void {
  const book = h.engine.book(h.btc);
  const bid = book.bids[0];
  const ask = book.asks[0];
  if (bid && ask)
    assert.ok(
      bid.price.lt(ask.price),
      `crossed book ${bid.price.toFixed()} >= ${ask.price.toFixed()} after ${step}`,
    );
  for (const e of [...book.bids, ...book.asks]) {
    const o = h.engine.order(e.txid);
    assert.equal(o?.status, 'open', `book entry ${e.txid} is ${o?.status} after ${step}`);
    assert.ok(e.qty.gt(0) && e.qty.lte(o.spec.volume.minus(o.volExec)), `book qty of ${e.txid}`);
    // Only the display slice of an iceberg shows; IOC orders never rest.
    if (o.spec.displayvol)
      assert.ok(e.qty.lte(o.spec.displayvol), `iceberg ${e.txid} shows too much`);
    assert.notEqual(o.spec.timeinforce, 'IOC', `IOC ${e.txid} rests after ${step}`);
  }

  for (const account of accounts) {
    // No fill is worse than the order's limit.
    for (const t of h.engine.trades(account)) {
      const limit = h.engine.order(t.ordertxid)?.limitPrice;
      if (limit === undefined) continue;
      const ok = t.side === 'buy' ? t.price.lte(limit) : t.price.gte(limit);
      assert.ok(
        ok,
        `${t.side} filled at ${t.price.toFixed()} beyond its limit ${limit.toFixed()} after ${step}`,
      );
    }
    const need = new Map<string, Decimal>();
    for (const o of h.engine.openOrders(account)) {
      assert.ok(o.status === 'open' || o.status === 'pending');
      const hold = expectedHold(h.btc, o);
      need.set(hold.asset, (need.get(hold.asset) ?? new Decimal(0)).plus(hold.amount));
    }
    for (const asset of ASSETS) {
      const balance = account.wallet.balance(asset);
      assert.ok(
        !balance.isNegative(),
        `${account.key} ${asset} balance ${balance.toFixed()} after ${step}`,
      );
      assert.equal(
        account.wallet.hold(asset).toFixed(),
        (need.get(asset) ?? new Decimal(0)).toFixed(),
        `${account.key} ${asset} hold after ${step}`,
      );
      assert.ok(account.wallet.available(asset).gte(0), `${account.key} ${asset} over-held`);
    }
  }

  for (const asset of ASSETS) {
    let total = h.engine.collectedFees().get(asset) ?? new Decimal(0);
    for (const account of accounts) total = total.plus(account.wallet.balance(asset));
    assert.equal(
      total.toFixed(),
      initial.get(asset)?.toFixed(),
      `${asset} not conserved after ${step}`,
    );
  }
}

async function runSequences(funding: Record<string, string>, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(
      fc.array(action, { minLength: 5, maxLength: 60, size: 'max' }),
      async (actions) => {
        const h = harness();
        const accounts = ['p0', 'p1', 'p2'].map((k) => h.account(k, funding));
        const initial = new Map(
          ASSETS.map((asset) => [
            asset,
            accounts.reduce((s, a) => s.plus(a.wallet.balance(asset)), new Decimal(0)),
          ]),
        );
        for (const [i, a] of actions.entries()) {
          await apply(h, accounts, a);
          checkInvariants(h, accounts, initial, `step ${i} ${JSON.stringify(a)}`);
        }
      },
    ),
    { numRuns },
  );
}

void describe('matching engine properties', () => {
  void it('thinly funded accounts: book never crossed, no negative balance, holds match, assets conserved', async () => {
    await runSequences({ ZUSD: '6000', XXBT: '0.08' }, 150);
  });

  void it('well funded accounts (deeper books, more fills): the same invariants', async () => {
    await runSequences({ ZUSD: '1000000', XXBT: '20' }, 150);
  });
});
