/**
 * How the client behaves when the exchange or the network misbehaves: retries of reads, never of
 * order entry, outcomes of transport failures, the key guard, throttling, warnings, pre-flight
 * checks and secrecy. Each test runs against a real HTTP server (the fake exchange) and asserts
 * what the server saw.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  ConnectError,
  ConnectionLostError,
  Credentials,
  HttpStatusError,
  InProcessNonceSource,
  InvalidKeyError,
  InvalidSignatureError,
  KeyRejectedError,
  ManualClock,
  PairRulesBook,
  RequestTimeoutError,
  SpotClient,
  ThrottledError,
  TickSizeCheckFailedError,
  TransportError,
  endpoints,
} from '../../src/index.js';
import { closedPort, clientFor, recordSigned, settle, until } from '../support/client-for.js';
import { newSecret, startFakeExchange, type FakeExchange } from '../support/fake-exchange.js';
import { XBTUSD_ENTRY } from '../support/pairs.js';

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

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
}

/** Longer than any headers timeout used here can take to fire (undici: ~1 s resolution). */
const HANG_MS = 4_000;

const MARKET_BUY = { pair: 'XBTUSD', type: 'buy', ordertype: 'market', volume: '1' } as const;

void describe('retries', () => {
  void it('a public GET retries after HTTP 502 and a dropped connection, then succeeds', async () => {
    let n = 0;
    ex.on('Time', () => {
      n++;
      if (n === 1) return { status: 502, body: '<html>bad gateway</html>' };
      if (n === 2) return { drop: true };
      return { unixtime: 1_700_000_000, rfc1123: 'x' };
    });
    const res = await client().time();
    assert.equal(res.result.unixtime, 1_700_000_000);
    assert.equal(ex.requestsFor('Time').length, 3);
    assert.equal(res.traceId, ex.requestsFor('Time')[2]?.traceId);
  });

  void it('a public GET gives up after the configured retries', async () => {
    ex.on('Time', () => ({ status: 503, body: 'unavailable' }));
    const err = await rejection(
      client({ retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 2 } }).time(),
    );
    assert.ok(err instanceof HttpStatusError);
    assert.equal(err.status, 503);
    assert.equal(ex.requestsFor('Time').length, 3);
  });

  void it('AddOrder is never retried on a dropped connection: outcome unknown', async () => {
    ex.on('AddOrder', () => ({ drop: true }));
    const err = await rejection(client().addOrder(MARKET_BUY));
    assert.ok(err instanceof TransportError, String(err));
    assert.ok(err instanceof ConnectionLostError, String(err));
    assert.equal(err.outcome, 'unknown');
    assert.equal(ex.requestsFor('AddOrder').length, 1);
  });

  void it('AddOrder is never retried on a headers timeout: RequestTimeoutError, outcome unknown', async () => {
    // undici's headers timer has a resolution of about 1 s, so the answer comes well after that.
    ex.on('AddOrder', () => ({ delayMs: HANG_MS }));
    const c = client({ transport: { headersTimeoutMs: 100 } });
    const err = await rejection(c.addOrder(MARKET_BUY));
    assert.ok(err instanceof RequestTimeoutError, String(err));
    assert.ok(err instanceof TransportError);
    assert.equal(err.outcome, 'unknown');
    assert.equal(err.phase, 'headers');
    assert.equal(ex.requestsFor('AddOrder').length, 1);
  });

  void it('a private read retries after EAPI:Invalid nonce with a fresh, higher nonce', async () => {
    // The exchange has seen a nonce as high as the one the client will draw first (another
    // process on the key, say): the first attempt is refused at the door, the retry goes through.
    const high = Date.now() + 3_600_000;
    ex.setLastNonce('private', ex.keys.spot.apiKey, high);
    const signed = recordSigned();
    try {
      const c = client({ nonceSource: new InProcessNonceSource({ floor: high - 1 }) });
      const res = await c.balance();
      assert.equal(res.result.ZUSD, '1000.0000');
      const [first, second, ...rest] = ex.requestsFor('Balance');
      assert.ok(first !== undefined && second !== undefined);
      assert.equal(rest.length, 0);
      assert.equal(first.rejection, 'EAPI:Invalid nonce');
      assert.equal(first.nonce, String(high));
      assert.equal(second.accepted, true);
      assert.ok(BigInt(second.nonce ?? '0') > BigInt(first.nonce ?? '0'));
      assert.deepEqual(
        signed.messages.map((m) => m.nonce),
        [first.nonce, second.nonce],
      );
    } finally {
      signed.stop();
    }
  });
});

void describe('transport failures', () => {
  void it('a headers timeout is a RequestTimeoutError with outcome unknown', async () => {
    ex.on('Balance', () => ({ delayMs: HANG_MS }));
    const c = client({ transport: { headersTimeoutMs: 100 }, retry: { retries: 0 } });
    const err = await rejection(c.balance());
    assert.ok(err instanceof RequestTimeoutError, String(err));
    assert.equal(err.outcome, 'unknown');
  });

  void it('connection refused is a ConnectError with outcome not-sent', async () => {
    const port = await closedPort();
    const c = new SpotClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials: { apiKey: ex.keys.spot.apiKey, apiSecret: ex.keys.spot.apiSecret },
      restLimiter: false,
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 2 },
    });
    clients.push(c);
    for (const call of [() => c.addOrder(MARKET_BUY), () => c.time()]) {
      const err = await rejection(call());
      assert.ok(err instanceof ConnectError, String(err));
      assert.equal(err.outcome, 'not-sent');
    }
  });

  void it('a non-200 status is an HttpStatusError with status and trace id', async () => {
    ex.on('AddOrder', () => ({ status: 502, body: 'bad gateway' }));
    ex.on('Balance', () => ({ status: 403, body: { error: ['forbidden'] } }));
    const c = client();
    const order = await rejection(c.addOrder(MARKET_BUY));
    assert.ok(order instanceof HttpStatusError, String(order));
    assert.equal(order.status, 502);
    assert.equal(order.outcome, 'unknown');
    assert.equal(order.body, 'bad gateway');
    assert.equal(order.traceId, ex.requestsFor('AddOrder')[0]?.traceId);
    assert.equal(ex.requestsFor('AddOrder').length, 1);

    const read = await rejection(c.balance());
    assert.ok(read instanceof HttpStatusError, String(read));
    assert.equal(read.status, 403);
    assert.equal(read.outcome, 'rejected');
    assert.equal(read.traceId, ex.requestsFor('Balance')[0]?.traceId);
    // A 403 is not worth repeating.
    assert.equal(ex.requestsFor('Balance').length, 1);
  });
});

void describe('key guard', () => {
  void it('stops after 3 consecutive EAPI:Invalid key; resetKeyGuard() re-enables', async () => {
    const key = { apiKey: 'key-not-yet-enabled', apiSecret: newSecret() };
    const c = client({ credentials: key });
    for (let i = 0; i < 3; i++) {
      const err = await rejection(c.balance());
      assert.ok(err instanceof InvalidKeyError, String(err));
    }
    const stopped = await rejection(c.balance());
    assert.ok(stopped instanceof KeyRejectedError, String(stopped));
    assert.equal(stopped.code, 'CLIENT_KEY_REJECTED');
    assert.equal(ex.requestsFor('Balance').length, 3);
    // Order entry is guarded too.
    assert.ok((await rejection(c.addOrder(MARKET_BUY))) instanceof KeyRejectedError);
    assert.equal(ex.requests.length, 3);

    ex.addKey(key); // the operator fixed the key
    c.resetKeyGuard();
    const res = await c.balance();
    assert.equal(res.result.ZUSD, '1000.0000');
    assert.equal(ex.requestsFor('Balance').length, 4);
  });

  void it('an accepted call resets the count', async () => {
    let n = 0;
    ex.on('Balance', () => (++n % 3 === 0 ? { ZUSD: '1.0' } : { error: ['EAPI:Invalid key'] }));
    const c = client();
    for (let round = 0; round < 2; round++) {
      await rejection(c.balance());
      await rejection(c.balance());
      await c.balance();
    }
    assert.equal(ex.requestsFor('Balance').length, 6);
  });
});

void describe('EService:Throttled', () => {
  void it('makes the next private call wait until the announced time', async () => {
    const clock = new ManualClock(1_700_000_000_000);
    const retryAtSec = Math.floor(clock.now() / 1000) + 30;
    ex.on('AddOrder', () => ({ error: [`EService:Throttled: ${retryAtSec}`] }));
    const seenAt: number[] = [];
    ex.on('Balance', () => {
      seenAt.push(clock.now());
      return { ZUSD: '5.0' };
    });
    const c = client({ clock, restLimiter: undefined });
    assert.ok(c.limiter !== undefined);

    const throttled = await rejection(c.addOrder(MARKET_BUY));
    assert.ok(throttled instanceof ThrottledError, String(throttled));
    assert.equal(throttled.retryAtMs, retryAtSec * 1000);

    const pending = c.balance();
    await until(() => c.limiter?.snapshot().queued === 1, 2_000, 'the call to queue');
    await clock.advance(29_000);
    await settle(20);
    assert.equal(ex.requestsFor('Balance').length, 0, 'sent before the throttle ended');

    await clock.advance(1_000);
    const res = await pending;
    assert.equal(res.result.ZUSD, '5.0');
    assert.equal(ex.requestsFor('Balance').length, 1);
    assert.ok((seenAt[0] ?? 0) >= retryAtSec * 1000, `arrived at ${seenAt[0]}`);
  });
});

void describe('warnings and pre-flight checks', () => {
  void it('W... strings come back in warnings beside the result', async () => {
    ex.on('Balance', () => ({
      error: ['WGeneral:Deprecated:use BalanceEx'],
      result: { ZUSD: '10.0' },
    }));
    const res = await client().balance();
    assert.deepEqual(res.result, { ZUSD: '10.0' });
    assert.equal(res.warnings.length, 1);
    assert.equal(res.warnings[0]?.raw, 'WGeneral:Deprecated:use BalanceEx');
    assert.equal(res.warnings[0]?.severity, 'W');
    assert.equal(res.warnings[0]?.category, 'General');
  });

  void it('an off-tick AddOrder price throws TickSizeCheckFailedError and sends nothing', async () => {
    const pairRules = PairRulesBook.fromAssetPairs({ XXBTZUSD: XBTUSD_ENTRY });
    const c = client({ pairRules });
    const order = { pair: 'XBTUSD', type: 'buy', ordertype: 'limit', volume: '0.01' } as const;
    // Wrapped so that a synchronous throw is caught as well (see the next test).
    const err = await rejection(
      Promise.resolve().then(() => c.addOrder({ ...order, price: '37000.05' })),
    );
    assert.ok(err instanceof TickSizeCheckFailedError, String(err));
    assert.equal(err.raw, 'EOrder:Tick size check failed');
    assert.equal(ex.requests.length, 0);
    // On tick, the same order goes out.
    await c.addOrder({ ...order, price: '37000.1' });
    assert.equal(ex.requestsFor('AddOrder').length, 1);
  });

  void it('pre-flight failures reject the returned promise rather than throw synchronously', async () => {
    // A caller writing `Promise.allSettled([c.addOrder(a), c.addOrder(b)])` or
    // `c.addOrder(b).catch(handle)` must get a rejected promise: a synchronous throw skips the
    // handler, and in the allSettled form loses the outcome of order `a`, already on the wire.
    const c = client({ pairRules: PairRulesBook.fromAssetPairs({ XXBTZUSD: XBTUSD_ENTRY }) });
    const offTick = {
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '0.01',
      price: '1.05',
    } as const;
    const calls: Record<string, () => Promise<unknown>> = {
      addOrder: () => c.addOrder(offTick),
      addOrderBatch: () => c.addOrderBatch({ pair: 'XBTUSD', orders: [offTick] }),
      editOrder: () => c.editOrder({ txid: 'O1', pair: 'XBTUSD', price: '1.05' }),
      futuresAcceptRfqOffer: () =>
        c.futuresAcceptRfqOffer({ rfqUid: 'r', bidAccepted: '1', askAccepted: '2' }),
      custodyWithdrawalMethods: () => c.custodyWithdrawalMethods({ vault_id: 'V1', asset: 'BTC' }),
    };
    const throwSynchronously: string[] = [];
    for (const [name, call] of Object.entries(calls)) {
      let returned: Promise<unknown> | undefined;
      try {
        returned = call();
      } catch {
        throwSynchronously.push(name);
        continue;
      }
      await assert.rejects(returned);
    }
    assert.equal(ex.requests.length, 0);
    assert.deepEqual(
      throwSynchronously,
      [],
      'these methods throw instead of returning a rejected promise',
    );
  });

  void it("call() runs the endpoint's checks: nothing signed, sent or drawn from the nonces", async () => {
    const floor = Date.now() + 3_600_000;
    const c = client({
      pairRules: PairRulesBook.fromAssetPairs({ XXBTZUSD: XBTUSD_ENTRY }),
      nonceSource: new InProcessNonceSource({ floor }),
    });
    const order = { pair: 'XBTUSD', type: 'buy', ordertype: 'limit', volume: '0.01' } as const;
    const channel = recordSigned();
    // The generic call() holds an order to the pair's rules as the named methods do.
    const offTick = await rejection(c.call(endpoints.addOrder, { ...order, price: '37000.05' }));
    assert.ok(offTick instanceof TickSizeCheckFailedError, String(offTick));
    const oneSided = await rejection(c.call(endpoints.futuresAcceptRfqOffer, { rfqUid: 'r' }));
    assert.match(String(oneSided), /bidAccepted\/askAccepted: exactly one of them must be given/);
    channel.stop();
    assert.equal(ex.requests.length, 0, 'nothing crossed the wire');
    assert.deepEqual(channel.messages, [], 'nothing signed');
    await c.addOrder({ ...order, price: '37000.1' });
    assert.equal(ex.requestsFor('AddOrder')[0]?.nonce, String(floor + 1), 'no nonce was taken');
  });
});

void describe('secrets', () => {
  void it('never appear in errors, the inspected client or serialised credentials', async () => {
    const otp = '918273';
    const secret = newSecret();
    const secretHex = Buffer.from(secret, 'base64').toString('hex');
    const wrongOtpKey = { apiKey: ex.keys.otp.apiKey, apiSecret: secret, otp };
    const c = client({
      credentials: wrongOtpKey,
      futuresCredentials: { apiKey: 'fut-nobody', apiSecret: secret },
      custodyCredentials: { apiKey: 'cus-nobody', apiSecret: secret },
    });
    ex.on('AddOrder', () => ({ drop: true }));
    const errors: unknown[] = [
      await rejection(c.balance()),
      await rejection(c.addOrder(MARKET_BUY)),
      await rejection(c.futuresFills()),
      await rejection(c.custodyWithdrawalMethods({ vault_id: 'VABCDEFGHIJKLMN' })),
    ];
    assert.ok(errors[0] instanceof InvalidSignatureError);

    const port = await closedPort();
    const offline = new SpotClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials: wrongOtpKey,
      retry: { retries: 0 },
    });
    clients.push(offline);
    errors.push(await rejection(offline.balance()));

    const texts: string[] = [];
    for (const err of errors) {
      assert.ok(err instanceof Error);
      texts.push(err.message, String(err), inspect(err, { depth: 10, showHidden: true }));
      texts.push(JSON.stringify(err));
    }
    texts.push(inspect(c, { depth: 10, showHidden: true, getters: true }));
    texts.push(inspect(offline, { depth: 10 }), JSON.stringify(c));
    const creds = new Credentials(wrongOtpKey);
    texts.push(
      JSON.stringify(creds),
      JSON.stringify({ creds }),
      String(creds),
      inspect(creds, { depth: 10 }),
    );
    for (const text of texts) {
      assert.ok(!text.includes(secret), `secret in: ${text.slice(0, 200)}`);
      assert.ok(!text.includes(secretHex), `decoded secret in: ${text.slice(0, 200)}`);
      assert.ok(!text.includes(otp), `otp in: ${text.slice(0, 200)}`);
    }
    // The credentials JSON shows only the masked key.
    assert.deepEqual(JSON.parse(JSON.stringify(creds)), { apiKey: creds.maskedKey });
    assert.ok(!JSON.stringify(creds).includes(wrongOtpKey.apiKey));
  });
});
