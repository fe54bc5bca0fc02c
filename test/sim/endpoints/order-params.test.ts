import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from '../../../src/core/index.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from '../../../src/sim/defaults.js';
import { SimError } from '../../../src/sim/errors.js';
import { Markets } from '../../../src/sim/markets.js';
import {
  checkDeadline,
  checkEditAgainst,
  isPostOnlyLimit,
  orderRef,
  parseAddOrder,
  parseAddOrderBatch,
  parseEditOrder,
  parsePrice,
} from '../../../src/sim/endpoints/order-params.js';

const markets = new Markets(DEFAULT_ASSETS, DEFAULT_PAIRS);
const NOW = 1_700_000_000_000;
const base = { pair: 'XBTUSD', type: 'buy', ordertype: 'limit', volume: '1.25', price: '37500' };

function add(fields: Record<string, unknown>) {
  return parseAddOrder(fields, markets, NOW);
}

function rejects(fn: () => unknown, errorString: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SimError, `expected SimError, got ${String(err)}`);
    assert.equal(err.errorString, errorString);
    return true;
  });
}

const invalid = (field: string): string => `EGeneral:Invalid arguments:${field}`;

describe('AddOrder fields', () => {
  it('parses a plain limit order with the defaults the spec names', () => {
    const { spec, validate } = add(base);
    assert.equal(spec.pair.id, 'XXBTZUSD');
    assert.equal(spec.side, 'buy');
    assert.equal(spec.ordertype, 'limit');
    assert.equal(spec.volume.toFixed(), '1.25');
    assert.deepEqual(spec.price, { kind: 'abs', value: new Decimal('37500') });
    assert.equal(spec.price2, undefined);
    assert.equal(spec.trigger, 'last');
    assert.equal(spec.timeinforce, 'GTC');
    assert.equal(spec.stptype, 'cancel-newest');
    assert.equal(spec.userref, 0);
    assert.equal(spec.starttmMs, 0);
    assert.equal(spec.expiretmMs, 0);
    assert.equal(spec.reduceOnly, false);
    assert.deepEqual(spec.flags, {
      post: false,
      fcib: false,
      fciq: false,
      nompp: false,
      viqc: false,
    });
    assert.equal(validate, false);
  });

  it('accepts the pair by id, altname and wsname; an unknown pair is EQuery', () => {
    for (const pair of ['XXBTZUSD', 'XBTUSD', 'XBT/USD']) {
      assert.equal(add({ ...base, pair }).spec.pair.id, 'XXBTZUSD');
    }
    rejects(() => add({ ...base, pair: 'DOGEUSD' }), 'EQuery:Unknown asset pair');
    rejects(() => add({ ...base, pair: undefined }), invalid('pair'));
  });

  it('refuses missing or unknown ordertype, type and volume', () => {
    rejects(() => add({ ...base, ordertype: undefined }), invalid('ordertype'));
    rejects(() => add({ ...base, ordertype: 'iceberg' }), invalid('ordertype'));
    rejects(() => add({ ...base, type: 'hold' }), invalid('type'));
    rejects(() => add({ ...base, volume: undefined }), invalid('volume'));
    rejects(() => add({ ...base, volume: '1e3' }), invalid('volume'));
    rejects(() => add({ ...base, volume: '-1' }), invalid('volume'));
  });

  it('takes JSON numbers and booleans as well as form strings', () => {
    const { spec, validate } = add({
      ...base,
      volume: 2,
      price: 37500.5,
      userref: 42,
      validate: true,
      reduce_only: 'true',
    });
    assert.equal(spec.volume.toFixed(), '2');
    assert.deepEqual(spec.price, { kind: 'abs', value: new Decimal('37500.5') });
    assert.equal(spec.userref, 42);
    assert.equal(validate, true);
    assert.equal(spec.reduceOnly, true);
    assert.equal(add({ ...base, validate: 'false' }).validate, false);
    rejects(() => add({ ...base, validate: 'yes' }), invalid('validate'));
    rejects(() => add({ ...base, reduce_only: 1 }), invalid('reduce_only'));
  });

  it('requires the prices each order type needs and drops those it ignores', () => {
    rejects(() => add({ ...base, price: undefined }), invalid('price'));
    const market = add({ ...base, ordertype: 'market', price: '1', price2: '2' }).spec;
    assert.equal(market.price, undefined);
    assert.equal(market.price2, undefined);
    const sl = add({ ...base, ordertype: 'stop-loss', price: '30000', price2: '1' }).spec;
    assert.deepEqual(sl.price, { kind: 'abs', value: new Decimal('30000') });
    assert.equal(sl.price2, undefined);
    rejects(() => add({ ...base, ordertype: 'take-profit', price: undefined }), invalid('price'));
    rejects(
      () => add({ ...base, ordertype: 'stop-loss-limit', price2: undefined }),
      invalid('price2'),
    );
    const tpl = add({ ...base, ordertype: 'take-profit-limit', price: '40000', price2: '39990' });
    assert.deepEqual(tpl.spec.price2, { kind: 'abs', value: new Decimal('39990') });
  });

  it('parses relative prices: +, -, # and a % suffix', () => {
    assert.deepEqual(parsePrice('+10.5', 'price'), {
      kind: 'rel',
      op: '+',
      amount: new Decimal('10.5'),
      percent: false,
    });
    assert.deepEqual(parsePrice('-2%', 'price'), {
      kind: 'rel',
      op: '-',
      amount: new Decimal('2'),
      percent: true,
    });
    assert.deepEqual(parsePrice('#5', 'price2'), {
      kind: 'rel',
      op: '#',
      amount: new Decimal('5'),
      percent: false,
    });
    rejects(() => parsePrice('5%', 'price'), invalid('price'));
    rejects(() => parsePrice('-100%', 'price'), invalid('price'));
    rejects(() => parsePrice('abc', 'price2'), invalid('price2'));
    // An unescaped '+' in a form body arrives as a space.
    rejects(() => parsePrice(' 5', 'price'), invalid('price'));
  });

  it('trailing stops need a + offset, and price2 a + or - offset', () => {
    const ts = add({ ...base, ordertype: 'trailing-stop', price: '+50' }).spec;
    assert.deepEqual(ts.price, { kind: 'rel', op: '+', amount: new Decimal(50), percent: false });
    rejects(() => add({ ...base, ordertype: 'trailing-stop', price: '50' }), invalid('price'));
    rejects(() => add({ ...base, ordertype: 'trailing-stop', price: '-50' }), invalid('price'));
    const tsl = add({ ...base, ordertype: 'trailing-stop-limit', price: '+1%', price2: '-10' });
    assert.equal(tsl.spec.price2?.kind, 'rel');
    rejects(
      () => add({ ...base, ordertype: 'trailing-stop-limit', price: '+1%', price2: '30000' }),
      invalid('price2'),
    );
    rejects(
      () => add({ ...base, ordertype: 'trailing-stop-limit', price: '+1%', price2: '#5' }),
      invalid('price2'),
    );
  });

  it('displayvol: limit orders only, above zero and below volume', () => {
    assert.equal(add({ ...base, displayvol: '0.25' }).spec.displayvol?.toFixed(), '0.25');
    rejects(() => add({ ...base, displayvol: '1.25' }), invalid('displayvol'));
    rejects(() => add({ ...base, displayvol: '0' }), invalid('displayvol'));
    rejects(() => add({ ...base, ordertype: 'market', displayvol: '0.1' }), invalid('displayvol'));
  });

  it('oflags: post only on limit, fcib and fciq exclusive, viqc only on market', () => {
    const flags = add({ ...base, oflags: 'post,fciq,nompp' }).spec.flags;
    assert.deepEqual(flags, { post: true, fcib: false, fciq: true, nompp: true, viqc: false });
    assert.equal(add({ ...base, ordertype: 'market', oflags: 'viqc' }).spec.flags.viqc, true);
    rejects(() => add({ ...base, oflags: 'fcib,fciq' }), invalid('oflags'));
    rejects(() => add({ ...base, oflags: 'viqc' }), invalid('oflags'));
    rejects(() => add({ ...base, ordertype: 'market', oflags: 'post' }), invalid('oflags'));
    rejects(() => add({ ...base, oflags: 'post,turbo' }), invalid('oflags'));
  });

  it('trigger, stptype, timeinforce and leverage take only their listed values', () => {
    const spec = add({
      ...base,
      trigger: 'index',
      stptype: 'cancel-both',
      timeinforce: 'IOC',
      leverage: '2',
    }).spec;
    assert.equal(spec.trigger, 'index');
    assert.equal(spec.stptype, 'cancel-both');
    assert.equal(spec.timeinforce, 'IOC');
    assert.equal(spec.leverage, '2');
    assert.equal(add({ ...base, leverage: 'none' }).spec.leverage, undefined);
    rejects(() => add({ ...base, trigger: 'mark' }), invalid('trigger'));
    rejects(() => add({ ...base, stptype: 'cancel-all' }), invalid('stptype'));
    rejects(() => add({ ...base, timeinforce: 'FOK' }), invalid('timeinforce'));
    rejects(() => add({ ...base, leverage: 'lots' }), invalid('leverage'));
  });

  it('starttm and expiretm: 0, Unix seconds or +n seconds, in ms', () => {
    const abs = add({ ...base, starttm: '1700000100', expiretm: '1700000200' }).spec;
    assert.equal(abs.starttmMs, 1_700_000_100_000);
    assert.equal(abs.expiretmMs, 1_700_000_200_000);
    const rel = add({ ...base, starttm: '+10', expiretm: '+30' }).spec;
    assert.equal(rel.starttmMs, NOW + 10_000);
    assert.equal(rel.expiretmMs, NOW + 30_000);
    assert.equal(add({ ...base, starttm: '0', expiretm: '0' }).spec.expiretmMs, 0);
    assert.equal(add({ ...base, expiretm: '+5' }).spec.expiretmMs, NOW + 5_000);
    rejects(() => add({ ...base, expiretm: '+4' }), invalid('expiretm'));
    rejects(() => add({ ...base, expiretm: '1600000000' }), invalid('expiretm'));
    rejects(() => add({ ...base, starttm: '+60', expiretm: '+30' }), invalid('expiretm'));
    rejects(() => add({ ...base, starttm: 'soon' }), invalid('starttm'));
  });

  it('GTD needs an expiretm', () => {
    assert.equal(add({ ...base, timeinforce: 'GTD', expiretm: '+60' }).spec.timeinforce, 'GTD');
    rejects(() => add({ ...base, timeinforce: 'GTD' }), invalid('expiretm'));
  });

  it('userref is an int32', () => {
    assert.equal(add({ ...base, userref: '-2147483648' }).spec.userref, -2147483648);
    assert.equal(add({ ...base, userref: 2147483647 }).spec.userref, 2147483647);
    rejects(() => add({ ...base, userref: '2147483648' }), invalid('userref'));
    rejects(() => add({ ...base, userref: 1.5 }), invalid('userref'));
    rejects(() => add({ ...base, userref: 'abc' }), invalid('userref'));
  });

  it('conditional close from form keys or a JSON object', () => {
    const form = add({ ...base, 'close[ordertype]': 'stop-loss', 'close[price]': '36000' }).spec;
    assert.deepEqual(form.close, {
      ordertype: 'stop-loss',
      price: { kind: 'abs', value: new Decimal(36000) },
    });
    const json = add({
      ...base,
      close: { ordertype: 'take-profit-limit', price: '40000', price2: '+5' },
    }).spec;
    assert.equal(json.close?.ordertype, 'take-profit-limit');
    assert.deepEqual(json.close?.price2, {
      kind: 'rel',
      op: '+',
      amount: new Decimal(5),
      percent: false,
    });
    rejects(() => add({ ...base, 'close[ordertype]': 'market' }), invalid('close[ordertype]'));
    rejects(() => add({ ...base, 'close[price]': '36000' }), invalid('close[ordertype]'));
    rejects(() => add({ ...base, 'close[ordertype]': 'limit' }), invalid('close[price]'));
    rejects(
      () => add({ ...base, close: { ordertype: 'stop-loss-limit', price: '1' } }),
      invalid('close[price2]'),
    );
    rejects(() => add({ ...base, close: 'stop-loss' }), invalid('close'));
  });
});

describe('deadline', () => {
  const at = (ms: number): string => new Date(ms).toISOString();

  it('accepts RFC 3339 times between now+2 s and now+60 s', () => {
    assert.equal(checkDeadline({ deadline: at(NOW + 2_000) }, NOW), NOW + 2_000);
    assert.equal(checkDeadline({ deadline: at(NOW + 60_000) }, NOW), NOW + 60_000);
    assert.equal(checkDeadline({ deadline: '2023-11-14T22:13:25+00:00' }, NOW), NOW + 5_000);
    assert.equal(checkDeadline({}, NOW), undefined);
  });

  it('outside the window is invalid; already passed is Deadline elapsed', () => {
    rejects(() => checkDeadline({ deadline: at(NOW + 1_999) }, NOW), invalid('deadline'));
    rejects(() => checkDeadline({ deadline: at(NOW + 60_001) }, NOW), invalid('deadline'));
    rejects(() => checkDeadline({ deadline: 'tomorrow' }, NOW), invalid('deadline'));
    rejects(() => checkDeadline({ deadline: String(NOW + 5_000) }, NOW), invalid('deadline'));
    rejects(() => checkDeadline({ deadline: at(NOW) }, NOW), 'EService:Deadline elapsed');
    rejects(() => checkDeadline({ deadline: at(NOW - 1_000) }, NOW), 'EService:Deadline elapsed');
    rejects(() => add({ ...base, deadline: at(NOW - 1) }), 'EService:Deadline elapsed');
  });
});

describe('AddOrderBatch fields', () => {
  const order = { type: 'buy', ordertype: 'limit', volume: '1', price: '30000' };

  it('parses each entry for the batch pair and keeps a bad one as its error', () => {
    const batch = parseAddOrderBatch(
      {
        pair: 'XBTUSD',
        orders: [
          order,
          { ...order, volume: 'x' },
          { ...order, pair: 'ETHUSD' },
          { ...order, oflags: 'post' },
        ],
      },
      markets,
      NOW,
    );
    assert.equal(batch.pair.id, 'XXBTZUSD');
    assert.equal(batch.entries.length, 4);
    assert.ok(!(batch.entries[0] instanceof SimError));
    assert.equal((batch.entries[1] as SimError).errorString, invalid('volume'));
    assert.equal((batch.entries[2] as SimError).errorString, invalid('pair'));
    assert.deepEqual(batch.postOnly, [false, false, false, true]);
  });

  it('an entry naming the batch pair by another name is fine', () => {
    const batch = parseAddOrderBatch(
      { pair: 'XXBTZUSD', orders: [{ ...order, pair: 'XBT/USD' }] },
      markets,
      NOW,
    );
    assert.ok(!(batch.entries[0] instanceof SimError));
  });

  it('refuses no orders, more than 15, or no pair', () => {
    rejects(
      () => parseAddOrderBatch({ pair: 'XBTUSD', orders: [] }, markets, NOW),
      invalid('orders'),
    );
    rejects(() => parseAddOrderBatch({ pair: 'XBTUSD' }, markets, NOW), invalid('orders'));
    rejects(
      () => parseAddOrderBatch({ pair: 'XBTUSD', orders: Array(16).fill(order) }, markets, NOW),
      invalid('orders'),
    );
    assert.equal(
      parseAddOrderBatch({ pair: 'XBTUSD', orders: Array(15).fill(order) }, markets, NOW).entries
        .length,
      15,
    );
    rejects(() => parseAddOrderBatch({ orders: [order] }, markets, NOW), invalid('pair'));
  });
});

describe('EditOrder fields', () => {
  it('parses the changes; txid may be an order id or a userref', () => {
    const edit = parseEditOrder(
      { txid: 'OABCDE-FGHIJ-KLMNOP', pair: 'XBTUSD', volume: '2', price: '+1', oflags: 'post' },
      markets,
      NOW,
    );
    assert.equal(edit.target, 'OABCDE-FGHIJ-KLMNOP');
    assert.equal(edit.changes.volume?.toFixed(), '2');
    assert.equal(edit.changes.price?.kind, 'rel');
    assert.equal(edit.changes.post, true);
    assert.equal(edit.changes.userref, undefined);
    assert.equal(parseEditOrder({ txid: '77', pair: 'XBTUSD' }, markets, NOW).target, 77);
    assert.equal(parseEditOrder({ txid: 77, pair: 'XBTUSD' }, markets, NOW).target, 77);
    assert.equal(parseEditOrder({ txid: 'O1', pair: 'XBTUSD' }, markets, NOW).changes.post, false);
  });

  it('refuses missing txid or pair and bad values', () => {
    rejects(() => parseEditOrder({ pair: 'XBTUSD' }, markets, NOW), invalid('txid'));
    rejects(() => parseEditOrder({ txid: 'O1' }, markets, NOW), invalid('pair'));
    rejects(
      () => parseEditOrder({ txid: 'O1', pair: 'XBTUSD', volume: '0' }, markets, NOW),
      invalid('volume'),
    );
    rejects(
      () =>
        parseEditOrder({ txid: 'O1', pair: 'XBTUSD', volume: '1', displayvol: '2' }, markets, NOW),
      invalid('displayvol'),
    );
    rejects(
      () => parseEditOrder({ txid: 'O1', pair: 'XBTUSD', oflags: 'x' }, markets, NOW),
      invalid('oflags'),
    );
    rejects(
      () => parseEditOrder({ txid: 'O1', pair: 'XBTUSD', userref: 'one' }, markets, NOW),
      invalid('userref'),
    );
    rejects(
      () => parseEditOrder({ txid: 'O1', pair: 'XBTUSD', cancel_response: 'maybe' }, markets, NOW),
      invalid('cancel_response'),
    );
  });

  it('applies the order type rules to the changes', () => {
    const rel = parseEditOrder({ txid: 'O1', pair: 'XBTUSD', price: '30000' }, markets, NOW);
    rejects(() => checkEditAgainst('trailing-stop', rel.changes), invalid('price'));
    checkEditAgainst('limit', rel.changes);
    const post = parseEditOrder({ txid: 'O1', pair: 'XBTUSD', oflags: 'post' }, markets, NOW);
    rejects(() => checkEditAgainst('stop-loss', post.changes), invalid('oflags'));
  });
});

describe('small helpers', () => {
  it('orderRef tells ids from userrefs', () => {
    assert.equal(orderRef('OABCDE-FGHIJ-KLMNOP', 'txid'), 'OABCDE-FGHIJ-KLMNOP');
    assert.equal(orderRef('-5', 'txid'), -5);
    assert.equal(orderRef(12, 'txid'), 12);
    rejects(() => orderRef(true, 'txid'), invalid('txid'));
    rejects(() => orderRef('', 'orders'), invalid('orders'));
  });

  it('isPostOnlyLimit reads the raw fields', () => {
    assert.equal(isPostOnlyLimit({ ordertype: 'limit', oflags: 'fciq,post' }), true);
    assert.equal(isPostOnlyLimit({ ordertype: 'limit' }), false);
    assert.equal(isPostOnlyLimit({ ordertype: 'market', oflags: 'post' }), false);
  });
});
