/**
 * What crossed the wire: every request goes to a real HTTP server (the fake exchange) that checks
 * it as the exchange does, and the tests assert the recorded method, path, headers, raw body and
 * the params the server decoded from it.
 */
import assert from 'node:assert/strict';
import diagnostics from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  CustodyProblemError,
  DEFAULT_USER_AGENT,
  FuturesError,
  InProcessNonceSource,
  InvalidKeyError,
  InvalidNonceError,
  InvalidSignatureError,
  PermissionDeniedError,
  type SpotClient,
} from '../../src/index.js';
import { LIMIT_BUY, clientFor, recordSigned } from '../support/client-for.js';
import {
  newSecret,
  startFakeExchange,
  type FakeExchange,
  type RecordedRequest,
} from '../support/fake-exchange.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

let ex: FakeExchange;
let clients: SpotClient[];

beforeEach(async () => {
  ex = await startFakeExchange();
  clients = [];
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await ex.close();
});

function client(options: Parameters<typeof clientFor>[1] = {}): SpotClient {
  const c = clientFor(ex, options);
  clients.push(c);
  return c;
}

function only(name: string): RecordedRequest {
  const found = ex.requestsFor(name);
  assert.equal(found.length, 1, `expected one ${name} request, saw ${found.length}`);
  const [r] = found;
  assert.ok(r !== undefined);
  return r;
}

function assertAccepted(r: RecordedRequest): void {
  assert.equal(r.accepted, true, `${r.name} rejected at the door: ${r.rejection}`);
}

function jsonBody(r: RecordedRequest): Record<string, unknown> {
  return JSON.parse(r.bodyText) as Record<string, unknown>;
}

void describe('public GET', () => {
  void it('sends the query with arrays as comma lists, no body and no auth headers', async () => {
    ex.on('Assets', () => ({
      XXBT: { aclass: 'currency', altname: 'XBT', decimals: 10, display_decimals: 5 },
      XETH: { aclass: 'currency', altname: 'ETH', decimals: 10, display_decimals: 5 },
    }));
    ex.on('AssetPairs', () => ({
      XXBTZUSD: { fees: [[0, 0.26]] },
      XETHZUSD: { fees: [[0, 0.26]] },
    }));
    const c = client();
    const assets = await c.assets({ asset: ['XBT', 'ETH'], aclass: 'currency' });
    await c.assetPairs({ pair: ['XBTUSD', 'ETHUSD'], info: 'fees' });

    const r = only('Assets');
    assertAccepted(r);
    assert.equal(r.method, 'GET');
    assert.equal(r.path, '/0/public/Assets');
    assert.equal(r.query, 'asset=XBT,ETH&aclass=currency');
    assert.deepEqual(r.params, { asset: 'XBT,ETH', aclass: 'currency' });
    assert.equal(r.rawBody.length, 0);
    assert.equal(r.headers['api-key'], undefined);
    assert.equal(r.headers['api-sign'], undefined);
    assert.equal(assets.result.XXBT?.altname, 'XBT');
    assert.equal(assets.traceId, r.traceId);

    const p = only('AssetPairs');
    assert.deepEqual(p.params, { pair: 'XBTUSD,ETHUSD', info: 'fees' });
  });
});

void describe('form POST', () => {
  void it('AddOrder: form body, close[...] keys, starttm=+5 sent as %2B5', async () => {
    const signed = recordSigned();
    try {
      const c = client();
      const res = await c.addOrder({
        pair: 'XBTUSD',
        type: 'buy',
        ordertype: 'limit',
        volume: '1.25',
        price: '37500.0',
        oflags: 'post,fciq',
        starttm: '+5',
        close: { ordertype: 'stop-loss', price: '36000.0' },
        validate: true,
      });
      assert.deepEqual(res.result.txid, ['OFAKE1-AAAAA-BBBBBB']);

      const r = only('AddOrder');
      assertAccepted(r);
      assert.equal(r.method, 'POST');
      assert.equal(r.path, '/0/private/AddOrder');
      assert.equal(r.contentType, FORM);
      assert.match(r.bodyText, /(^|&)starttm=%2B5(&|$)/);
      assert.ok(!r.bodyText.includes('+'), `raw + in ${r.bodyText}`);
      assert.match(r.bodyText, /(^|&)oflags=post%2Cfciq(&|$)/);
      assert.equal(r.params?.starttm, '+5');
      assert.equal(r.params?.['close[ordertype]'], 'stop-loss');
      assert.equal(r.params?.['close[price]'], '36000.0');
      assert.equal(r.params?.validate, 'true');
      assert.equal(r.params?.oflags, 'post,fciq');
      assert.equal(r.params?.volume, '1.25');
      assert.equal(r.headers['api-key'], ex.keys.spot.apiKey);
      // The nonce in the body is the one the client announced when it signed.
      assert.deepEqual(signed.messages, [
        { endpoint: 'AddOrder', family: 'private', nonce: r.nonce },
      ]);
      assert.equal(r.params?.nonce, r.nonce);
    } finally {
      signed.stop();
    }
  });

  void it('order entry and reads alike go out through undici', async () => {
    const sent: string[] = [];
    const onSent = (m: unknown): void =>
      void sent.push((m as { request: { path: string } }).request.path);
    diagnostics.subscribe('undici:client:sendHeaders', onSent);
    try {
      const c = client();
      await c.addOrder(LIMIT_BUY);
      await c.balance();
      await c.time();
      assert.deepEqual(sent, ['/0/private/AddOrder', '/0/private/Balance', '/0/public/Time']);
      assertAccepted(only('AddOrder'));
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', onSent);
    }
  });

  void it('sends non-ASCII form values percent-encoded as UTF-8', async () => {
    ex.on('AddExport', () => ({ id: 'EXP1' }));
    const c = client();
    await c.addExport({ report: 'trades', description: 'Überblick 2024 — café' });
    const r = only('AddExport');
    assertAccepted(r);
    assert.equal(r.params?.description, 'Überblick 2024 — café');
    assert.match(r.bodyText, /description=%C3%9Cberblick%202024%20%E2%80%94%20caf%C3%A9/);
  });
});

void describe('JSON POST', () => {
  void it('Level3: JSON body, numeric nonce; nanosecond timestamps come back exact', async () => {
    ex.on('Level3', () => ({
      status: 200,
      body:
        '{"error":[],"result":{"pair":"XXBTZUSD","bids":[{"price":"37000.0","qty":"1.0",' +
        '"order_id":"OA","timestamp":1700000000123456789}],"asks":[]}}',
    }));
    const res = await client().level3({ pair: 'XBTUSD', depth: 10 });
    const r = only('Level3');
    assertAccepted(r);
    assert.equal(r.contentType, JSON_TYPE);
    const body = jsonBody(r);
    assert.equal(typeof body.nonce, 'number');
    assert.equal(String(body.nonce), r.nonce);
    assert.equal(body.pair, 'XBTUSD');
    assert.equal(body.depth, 10);
    assert.equal(res.result.bids[0]?.timestamp, 1700000000123456789n);
  });

  void it('AddOrderBatch: orders as an array of objects with nested close terms', async () => {
    ex.on('AddOrderBatch', () => ({ orders: [{ txid: 'O1' }, { txid: 'O2' }] }));
    const orders = [
      {
        ordertype: 'limit',
        type: 'buy',
        volume: '1.0',
        price: '30000.0',
        starttm: '+5',
        userref: 7,
      },
      {
        ordertype: 'limit',
        type: 'sell',
        volume: '2.0',
        price: '31000.0',
        close: { ordertype: 'stop-loss', price: '32000.0' },
      },
    ] as const;
    const deadline = '2030-01-01T00:00:00Z';
    await client().addOrderBatch({ pair: 'XBTUSD', orders, deadline });
    const r = only('AddOrderBatch');
    assertAccepted(r);
    assert.equal(r.contentType, JSON_TYPE);
    const body = jsonBody(r);
    assert.deepEqual(body.orders, orders);
    assert.equal(body.pair, 'XBTUSD');
    assert.equal(body.deadline, deadline);
    assert.equal(typeof body.nonce, 'number');
  });

  void it('CancelOrderBatch: ids and userrefs as a JSON array', async () => {
    ex.on('CancelOrderBatch', () => ({ count: 2 }));
    const res = await client().cancelOrderBatch({ orders: ['OABC-DEF-GHI', 42] });
    const r = only('CancelOrderBatch');
    assertAccepted(r);
    assert.equal(r.contentType, JSON_TYPE);
    assert.deepEqual(jsonBody(r).orders, ['OABC-DEF-GHI', 42]);
    assert.equal(res.result.count, 2);
  });

  void it('Earn/Allocate: amount as a string in a JSON body', async () => {
    ex.on('Earn/Allocate', () => true);
    const res = await client().earnAllocate({
      amount: '10.5',
      strategy_id: 'ESRFUO3-Q62XD-WIOIL7',
    });
    const r = only('Earn/Allocate');
    assertAccepted(r);
    assert.equal(r.path, '/0/private/Earn/Allocate');
    assert.equal(r.contentType, JSON_TYPE);
    const body = jsonBody(r);
    assert.equal(body.amount, '10.5');
    assert.equal(body.strategy_id, 'ESRFUO3-Q62XD-WIOIL7');
    assert.equal(res.result, true);
  });

  void it('GetOtcSpotTradeHistory: integer dates in a JSON body', async () => {
    const trade = {
      txid: 'TOTC1',
      order_date: 1_700_000_000_000,
      base_asset: 'BTC',
      quote_asset: 'USD',
      direction: 'buy',
      amount: '1.5',
      price: '37000.00',
      total: '55500.00',
      amount_usd: '55500.00',
    };
    ex.on('GetOtcSpotTradeHistory', () => [trade]);
    const res = await client().getOtcSpotTradeHistory({
      start_date: 1_699_000_000,
      end_date: 1_700_000_000,
      limit: 50,
    });
    const r = only('GetOtcSpotTradeHistory');
    assertAccepted(r);
    assert.equal(r.contentType, JSON_TYPE);
    const body = jsonBody(r);
    assert.equal(body.start_date, 1_699_000_000);
    assert.equal(body.end_date, 1_700_000_000);
    assert.equal(body.limit, 50);
    assert.equal(typeof body.nonce, 'number');
    assert.deepEqual(res.result, [trade]);
  });

  void it('Pay/transfer/create: the nonce is a JSON string, unicode note signed as UTF-8', async () => {
    ex.on('Pay/transfer/create', () => ({ transfer_id: 'PT1' }));
    await client().payTransferCreate({
      amount: '12.34',
      asset: 'USD',
      to: 'ålice',
      external_id: 'AAECAwQFBgcICQoLDA0ODw',
      note: 'thanks ☕ — merci',
    });
    const r = only('Pay/transfer/create');
    assertAccepted(r);
    assert.equal(r.path, '/0/private/Pay/transfer/create');
    assert.equal(r.contentType, JSON_TYPE);
    const body = jsonBody(r);
    assert.equal(typeof body.nonce, 'string');
    assert.match(String(body.nonce), /^\d+$/);
    assert.match(r.bodyText, /"nonce":"\d+"/);
    assert.equal(body.note, 'thanks ☕ — merci');
    assert.equal(body.to, 'ålice');
    assert.ok(r.rawBody.includes(Buffer.from('☕', 'utf8')));
  });
});

void describe('headers and two-factor keys', () => {
  void it('sends the otp in form and JSON bodies of a two-factor key', async () => {
    const k = ex.keys.otp;
    ex.on('Earn/Allocate', () => true);
    const c = client({ credentials: { apiKey: k.apiKey, apiSecret: k.apiSecret, otp: k.otp } });
    await c.balance();
    await c.earnAllocate({ amount: '1', strategy_id: 'S' });
    for (const name of ['Balance', 'Earn/Allocate']) {
      const r = only(name);
      assertAccepted(r);
      assert.equal(r.params?.otp, k.otp);
    }
  });

  void it('asks an otp function for each request', async () => {
    const k = ex.keys.otp;
    let calls = 0;
    const c = client({
      credentials: {
        apiKey: k.apiKey,
        apiSecret: k.apiSecret,
        otp: () => {
          calls++;
          return k.otp ?? '';
        },
      },
    });
    await c.balance();
    await c.balance();
    assert.equal(calls, 2);
    assert.ok(ex.requestsFor('Balance').every((r) => r.accepted && r.params?.otp === k.otp));
  });

  void it('a two-factor key without its otp is refused by the server', async () => {
    const k = ex.keys.otp;
    const c = client({ credentials: { apiKey: k.apiKey, apiSecret: k.apiSecret } });
    await assert.rejects(c.balance(), PermissionDeniedError);
    assert.equal(only('Balance').params?.otp, undefined);
  });

  void it('sends a User-Agent on every request, the default or the configured one', async () => {
    await client().time();
    await client().balance();
    await client({ transport: { userAgent: 'my-bot/2.0' } }).time();
    const uas = ex.requests.map((r) => r.headers['user-agent']);
    assert.deepEqual(uas, [DEFAULT_USER_AGENT, DEFAULT_USER_AGENT, 'my-bot/2.0']);
  });
});

void describe('futures and custody', () => {
  void it('fills: GET with query, APIKey/Authent/Nonce accepted', async () => {
    const fill = {
      fill_id: 'F1',
      symbol: 'PF_XBTUSD',
      side: 'buy',
      order_id: 'O1',
      size: 1,
      price: 37000.5,
      fillTime: '2024-01-01T00:00:00.000Z',
      fillType: 'maker',
    };
    ex.on('/derivatives/api/v3/fills', () => ({
      result: 'success',
      fills: [fill],
      serverTime: '2024-01-02T00:00:00.000Z',
    }));
    const res = await client().futuresFills({ lastFillTime: '2024-01-02T03:04:05.000Z' });
    const r = only('/derivatives/api/v3/fills');
    assertAccepted(r);
    assert.equal(r.method, 'GET');
    assert.equal(r.params?.lastFillTime, '2024-01-02T03:04:05.000Z');
    assert.equal(r.headers.apikey, ex.keys.futures.apiKey);
    assert.match(String(r.headers.nonce), /^\d+$/);
    assert.equal(typeof r.headers.authent, 'string');
    assert.equal(r.headers['api-sign'], undefined);
    assert.deepEqual(res.result.fills, [fill]);
  });

  void it('key check: GET under /api/auth/v1 accepted', async () => {
    ex.on('/api/auth/v1/api-keys/v3/check', (r) => ({
      apiKey: String(r.headers.apikey),
      accountUid: 'acc-1',
      permissions: { general: 'NO_ACCESS', transfer: 'NO_ACCESS' },
    }));
    const res = await client().futuresCheckApiKey();
    assertAccepted(only('/api/auth/v1/api-keys/v3/check'));
    assert.equal(res.result.apiKey, ex.keys.futures.apiKey);
  });

  void it('accept-offer: POST with the price in the query and no body, accepted', async () => {
    ex.on(/^\/derivatives\/api\/v3\/rfqs\/open-rfqs\/accept-offer\//, (r) => ({
      result: 'success',
      serverTime: '2024-01-02T00:00:00.000Z',
      rfqUid: decodeURIComponent(r.path.split('/').pop() ?? ''),
    }));
    const res = await client().futuresAcceptRfqOffer({ rfqUid: 'rfq-1/2', bidAccepted: '101.5' });
    const [r] = ex.requests;
    assert.ok(r !== undefined);
    assertAccepted(r);
    assert.equal(r.method, 'POST');
    assert.equal(r.path, '/derivatives/api/v3/rfqs/open-rfqs/accept-offer/rfq-1%2F2');
    assert.equal(r.query, 'bidAccepted=101.5');
    assert.equal(r.rawBody.length, 0);
    assert.equal(res.result.rfqUid, 'rfq-1/2');
  });

  void it('custody withdrawal methods: api-key/api-nonce/api-sign accepted', async () => {
    const method = {
      name: 'Bitcoin',
      method_id: 'M1',
      fee_amount: '0.0001',
      fee_asset: 'BTC',
      minimum: '0.001',
      is_disabled: false,
      asset: 'BTC',
      asset_class: 'currency',
      network_info: { network: 'bitcoin', explorer: 'https://x.invalid/tx/{tx_id}' },
    };
    ex.on(/^\/v0\/insto\/custody\/vaults\/[^/]+\/withdrawal-methods$/, () => [method]);
    const res = await client().custodyWithdrawalMethods({
      vault_id: 'VABCDEFGHIJKLMN',
      asset: 'BTC',
      asset_class: 'currency',
    });
    const [r] = ex.requests;
    assert.ok(r !== undefined);
    assertAccepted(r);
    assert.equal(r.path, '/v0/insto/custody/vaults/VABCDEFGHIJKLMN/withdrawal-methods');
    assert.deepEqual(r.params, { asset: 'BTC', asset_class: 'currency' });
    assert.equal(r.headers['api-key'], ex.keys.custody.apiKey);
    assert.equal(r.headers['api-nonce'], r.nonce);
    assert.deepEqual(res.result, [method]);
  });
});

void describe('server-side rejections come back typed, with the trace id', () => {
  void it('unknown key → InvalidKeyError', async () => {
    const c = client({ credentials: { apiKey: 'not-a-key', apiSecret: newSecret() } });
    const err = await c.balance().then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof InvalidKeyError, String(err));
    const r = only('Balance');
    assert.equal(r.rejection, 'EAPI:Invalid key');
    assert.equal(err.traceId, r.traceId);
    assert.equal(err.raw, 'EAPI:Invalid key');
    assert.match(err.message, new RegExp(r.traceId));
  });

  void it('wrong secret → InvalidSignatureError', async () => {
    const c = client({ credentials: { apiKey: ex.keys.spot.apiKey, apiSecret: newSecret() } });
    const err = await c
      .addOrder({ pair: 'XBTUSD', type: 'buy', ordertype: 'market', volume: '1' })
      .then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof InvalidSignatureError, String(err));
    const r = only('AddOrder');
    assert.equal(r.rejection, 'EAPI:Invalid signature');
    assert.equal(err.traceId, r.traceId);
  });

  void it("nonce below the key's high-water mark → InvalidNonceError", async () => {
    const high = Date.now() + 3_600_000;
    ex.setLastNonce('private', ex.keys.spot.apiKey, high);
    const c = client({ nonceSource: new InProcessNonceSource({ floor: high - 1_000 }) });
    const err = await c
      .addOrder({ pair: 'XBTUSD', type: 'buy', ordertype: 'market', volume: '1' })
      .then(
        () => assert.fail('expected a rejection'),
        (e: unknown) => e,
      );
    assert.ok(err instanceof InvalidNonceError, String(err));
    const r = only('AddOrder');
    assert.equal(r.rejection, 'EAPI:Invalid nonce');
    assert.equal(r.nonce, String(high - 999));
    assert.equal(err.traceId, r.traceId);
  });

  void it('typed errors carry their class name, for logs and stack traces', async () => {
    const high = Date.now() + 3_600_000;
    ex.setLastNonce('private', ex.keys.spot.apiKey, high);
    const cases = [
      {
        c: client({ credentials: { apiKey: 'nobody', apiSecret: newSecret() } }),
        cls: InvalidKeyError,
      },
      {
        c: client({ credentials: { apiKey: ex.keys.spot.apiKey, apiSecret: newSecret() } }),
        cls: InvalidSignatureError,
      },
      {
        c: client({ nonceSource: new InProcessNonceSource({ floor: high - 1_000 }) }),
        cls: InvalidNonceError,
      },
    ];
    const names: string[] = [];
    for (const { c, cls } of cases) {
      const err = await c
        .addOrder({ pair: 'XBTUSD', type: 'buy', ordertype: 'market', volume: '1' })
        .then(
          () => assert.fail('expected a rejection'),
          (e: unknown) => e,
        );
      assert.ok(err instanceof cls, String(err));
      names.push(err.name);
    }
    assert.deepEqual(names, ['InvalidKeyError', 'InvalidSignatureError', 'InvalidNonceError']);
  });

  void it('futures and custody auth failures keep status and trace id', async () => {
    const c = client({
      futuresCredentials: { apiKey: ex.keys.futures.apiKey, apiSecret: newSecret() },
      custodyCredentials: { apiKey: 'nobody', apiSecret: newSecret() },
    });
    const fut = await c.futuresFills().then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(fut instanceof FuturesError, String(fut));
    assert.equal(fut.status, 401);
    assert.equal(fut.traceId, only('/derivatives/api/v3/fills').traceId);
    const cus = await c.custodyWithdrawalMethods({ vault_id: 'VABCDEFGHIJKLMN' }).then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.ok(cus instanceof CustodyProblemError, String(cus));
    assert.equal(cus.status, 401);
    assert.equal(cus.traceId, ex.requests[1]?.traceId);
  });
});
