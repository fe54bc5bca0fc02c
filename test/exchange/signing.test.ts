/**
 * Signatures checked against vectors the test composes itself from node:crypto primitives, never
 * from src/ or the fake exchange: spot (spec, Authentication 2), futures and custody (the schemes
 * the client documents, which the spec leaves unstated). Then the same compositions are applied to
 * what the client actually put on the wire, and to hand-made requests at the fake exchange's door,
 * so client, fake and test agree three ways.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import {
  Credentials,
  custodySigner,
  futuresSigner,
  spotSigner,
  type SigningInput,
  type SpotClient,
} from '../../src/index.js';
import { clientFor } from '../support/client-for.js';
import { newSecret, startFakeExchange, type FakeExchange } from '../support/fake-exchange.js';
import { rawRequest } from '../support/raw-request.js';

// ---- the test's own composition ---------------------------------------------------------------

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();
const hmac512 = (secretBase64: string, message: Buffer): string =>
  createHmac('sha512', Buffer.from(secretBase64, 'base64')).update(message).digest('base64');

/** base64(HMAC-SHA512(decoded secret, path bytes ‖ SHA-256(nonce ‖ body bytes))). */
function ownSpotSign(secret: string, path: string, nonce: string, body: Buffer | string): string {
  const bodyBytes = typeof body === 'string' ? utf8(body) : body;
  return hmac512(
    secret,
    Buffer.concat([utf8(path), sha256(Buffer.concat([utf8(nonce), bodyBytes]))]),
  );
}

/** base64(HMAC-SHA512(decoded secret, SHA-256(postData-or-query ‖ nonce ‖ path without /derivatives))). */
function ownFuturesSign(secret: string, path: string, data: string, nonce: string): string {
  const endpointPath = path.replace(/^\/derivatives/, '');
  return hmac512(secret, sha256(utf8(`${data}${nonce}${endpointPath}`)));
}

/** base64(HMAC-SHA512(decoded secret, (path[?query]) ‖ SHA-256(nonce ‖ body))). */
function ownCustodySign(
  secret: string,
  path: string,
  query: string,
  nonce: string,
  body = '',
): string {
  const target = query === '' ? path : `${path}?${query}`;
  return hmac512(secret, Buffer.concat([utf8(target), sha256(utf8(`${nonce}${body}`))]));
}

function creds(secret: string, apiKey = 'test-key-0001'): Credentials {
  return new Credentials({ apiKey, apiSecret: secret });
}

function input(partial: Partial<SigningInput> & Pick<SigningInput, 'path'>): SigningInput {
  return { method: 'POST', query: '', body: '', nonce: '', ...partial };
}

// The exchange family's published example (secret, nonce, form body, path), whose signature was
// computed once with the composition above and is fixed here: a regression in either the signer or
// the test's own composition changes it.
const KNOWN = {
  secret:
    'kQH5HW/8p1uGOVjbgWA7FunAmGO8lsSUXNsu3eow76sz84Q18fWxnyRzBHCd3pd5nE9qa99HAZtuZuj6F1huXg==',
  path: '/0/private/AddOrder',
  nonce: '1616492376594',
  body: 'nonce=1616492376594&ordertype=limit&pair=XBTUSD&price=37500&type=buy&volume=1.25',
  sign: '4/dpxb3iT4tp/ZCVEwSnEsLxx0bqyhLpdfOpc6fn7OR8+UClSV5n9E6aSS8MPtnRfp32bAb0nmbRn6H8ndwLUQ==',
} as const;

void describe('spot signature (API-Key, API-Sign)', () => {
  void it('matches the fixed known vector', () => {
    assert.equal(ownSpotSign(KNOWN.secret, KNOWN.path, KNOWN.nonce, KNOWN.body), KNOWN.sign);
    const headers = spotSigner.sign(
      input({ path: KNOWN.path, body: KNOWN.body, nonce: KNOWN.nonce }),
      creds(KNOWN.secret, 'known-key'),
    );
    assert.deepEqual(headers, { 'API-Key': 'known-key', 'API-Sign': KNOWN.sign });
  });

  const secret = newSecret();
  const nonce = '1700000000123';
  const cases: { name: string; path: string; body: string }[] = [
    {
      name: 'a form body with close[...] keys',
      path: '/0/private/AddOrder',
      body: `nonce=${nonce}&ordertype=limit&type=sell&volume=0.5&pair=XBTUSD&price=40000.1&close%5Bordertype%5D=stop-loss&close%5Bprice%5D=39000`,
    },
    {
      name: 'a JSON body',
      path: '/0/private/AddOrderBatch',
      body: JSON.stringify({
        nonce: Number(nonce),
        pair: 'XBTUSD',
        orders: [
          {
            ordertype: 'limit',
            type: 'buy',
            volume: '1',
            price: '30000',
            close: { ordertype: 'limit', price: '31000' },
          },
        ],
      }),
    },
    {
      name: 'a body with + sent as %2B',
      path: '/0/private/AddOrder',
      body: `nonce=${nonce}&ordertype=limit&type=buy&volume=1&pair=XBTUSD&price=1&starttm=%2B5&expiretm=%2B60`,
    },
    {
      name: 'a JSON body with non-ASCII text (UTF-8 bytes)',
      path: '/0/private/Pay/transfer/create',
      body: JSON.stringify({
        nonce,
        amount: '1.5',
        asset: 'USD',
        to: 'zoë',
        external_id: 'AAEC',
        note: 'café ☕ 🚀 — ünïcödé',
      }),
    },
    {
      name: 'a form body with an otp',
      path: '/0/private/Balance',
      body: `nonce=${nonce}&otp=246810`,
    },
    {
      name: 'an empty payload besides the nonce',
      path: '/0/private/GetWebSocketsToken',
      body: `nonce=${nonce}`,
    },
  ];
  for (const c of cases) {
    void it(`agrees with the test's own composition for ${c.name}`, () => {
      const headers = spotSigner.sign(input({ path: c.path, body: c.body, nonce }), creds(secret));
      assert.equal(headers['API-Sign'], ownSpotSign(secret, c.path, nonce, c.body));
      assert.equal(headers['API-Key'], 'test-key-0001');
    });
  }

  void it('signs the bytes as sent: %2B and + differ, UTF-8 differs from latin1', () => {
    const path = '/0/private/AddOrder';
    const encoded = `nonce=${nonce}&starttm=%2B5`;
    const raw = `nonce=${nonce}&starttm=+5`;
    const signEncoded = spotSigner.sign(input({ path, body: encoded, nonce }), creds(secret))[
      'API-Sign'
    ];
    const signRaw = spotSigner.sign(input({ path, body: raw, nonce }), creds(secret))['API-Sign'];
    assert.notEqual(signEncoded, signRaw);
    assert.equal(signEncoded, ownSpotSign(secret, path, nonce, encoded));

    const unicode = JSON.stringify({ nonce: Number(nonce), note: 'café' });
    const sign = spotSigner.sign(input({ path, body: unicode, nonce }), creds(secret))['API-Sign'];
    assert.equal(sign, ownSpotSign(secret, path, nonce, Buffer.from(unicode, 'utf8')));
    assert.notEqual(sign, ownSpotSign(secret, path, nonce, Buffer.from(unicode, 'latin1')));
  });

  void it('binds path, nonce and secret', () => {
    const body = `nonce=${nonce}`;
    const base = spotSigner.sign(input({ path: '/0/private/Balance', body, nonce }), creds(secret))[
      'API-Sign'
    ];
    const otherPath = spotSigner.sign(
      input({ path: '/0/private/BalanceEx', body, nonce }),
      creds(secret),
    )['API-Sign'];
    const otherNonce = spotSigner.sign(
      input({ path: '/0/private/Balance', body, nonce: `${nonce}1` }),
      creds(secret),
    )['API-Sign'];
    const otherSecret = spotSigner.sign(
      input({ path: '/0/private/Balance', body, nonce }),
      creds(newSecret()),
    )['API-Sign'];
    assert.equal(new Set([base, otherPath, otherNonce, otherSecret]).size, 4);
  });
});

void describe('futures signature (APIKey, Authent, Nonce)', () => {
  const secret = newSecret();
  const nonce = '1700000000456';

  void it('signs the query of a GET and strips /derivatives from the path', () => {
    const path = '/derivatives/api/v3/fills';
    const query = 'lastFillTime=2024-01-02T03%3A04%3A05.000Z';
    const headers = futuresSigner.sign(
      input({ method: 'GET', path, query, nonce }),
      creds(secret, 'fut-key'),
    );
    assert.equal(headers.APIKey, 'fut-key');
    assert.equal(headers.Nonce, nonce);
    assert.equal(headers.Authent, ownFuturesSign(secret, path, query, nonce));
    // The prefix really is stripped: signing the full path gives something else.
    assert.notEqual(headers.Authent, hmac512(secret, sha256(utf8(`${query}${nonce}${path}`))));
  });

  void it('signs the query of a POST without a body (accept-offer)', () => {
    const path = '/derivatives/api/v3/rfqs/open-rfqs/accept-offer/rfq-123';
    const query = 'bidAccepted=101.5';
    const headers = futuresSigner.sign(
      input({ method: 'POST', path, query, nonce }),
      creds(secret),
    );
    assert.equal(headers.Authent, ownFuturesSign(secret, path, query, nonce));
  });

  void it('signs the post data of a POST with a body', () => {
    const path = '/derivatives/api/v3/sendorder';
    const body = 'orderType=lmt&symbol=PI_XBTUSD&side=buy&size=1&limitPrice=1.5';
    const headers = futuresSigner.sign(input({ method: 'POST', path, body, nonce }), creds(secret));
    assert.equal(headers.Authent, ownFuturesSign(secret, path, body, nonce));
  });

  void it('keeps paths outside /derivatives whole (key check)', () => {
    const path = '/api/auth/v1/api-keys/v3/check';
    const headers = futuresSigner.sign(input({ method: 'GET', path, nonce }), creds(secret));
    assert.equal(headers.Authent, ownFuturesSign(secret, path, '', nonce));
  });
});

void describe('custody signature (api-key, api-nonce, api-sign)', () => {
  const secret = newSecret();
  const nonce = '1700000000789';
  const path = '/v0/insto/custody/vaults/VABCDEFGHIJKLMN/withdrawal-methods';

  void it('signs path?query when there is a query', () => {
    const query = 'asset=BTC&asset_class=currency';
    const headers = custodySigner.sign(
      input({ method: 'GET', path, query, nonce }),
      creds(secret, 'cus-key'),
    );
    assert.deepEqual(headers, {
      'api-key': 'cus-key',
      'api-nonce': nonce,
      'api-sign': ownCustodySign(secret, path, query, nonce),
    });
  });

  void it('signs the path alone when there is no query', () => {
    const headers = custodySigner.sign(input({ method: 'GET', path, nonce }), creds(secret));
    assert.equal(headers['api-sign'], ownCustodySign(secret, path, '', nonce));
    assert.notEqual(headers['api-sign'], ownCustodySign(secret, `${path}?`, '', nonce));
  });
});

void describe('what the client puts on the wire verifies under the test composition', () => {
  let ex: FakeExchange;
  let client: SpotClient;

  beforeEach(async () => {
    ex = await startFakeExchange();
    client = clientFor(ex);
  });
  afterEach(async () => {
    await client.close();
    await ex.close();
  });

  void it('spot form and JSON bodies', async () => {
    ex.on('Earn/Allocate', () => true);
    await client.balance();
    await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '1',
      price: '1',
      starttm: '+5',
    });
    await client.earnAllocate({ amount: '1.25', strategy_id: 'ESTRAT-ü' });
    assert.equal(ex.requests.length, 3);
    for (const r of ex.requests) {
      assert.equal(r.accepted, true, `${r.name}: ${r.rejection}`);
      assert.ok(r.nonce !== undefined);
      assert.equal(
        r.headers['api-sign'],
        ownSpotSign(ex.keys.spot.apiSecret, r.path, r.nonce, r.rawBody),
      );
    }
  });

  void it('futures and custody', async () => {
    ex.on('/derivatives/api/v3/fills', () => ({
      result: 'success',
      fills: [],
      serverTime: '2024-01-01T00:00:00Z',
    }));
    ex.on(/\/withdrawal-methods$/, () => []);
    await client.futuresFills({ lastFillTime: '2024-01-02T03:04:05.000Z' });
    await client.custodyWithdrawalMethods({
      vault_id: 'VABCDEFGHIJKLMN',
      asset: 'BTC',
      asset_class: 'currency',
    });
    const [fills, custody] = ex.requests;
    assert.ok(fills !== undefined && custody !== undefined);
    assert.equal(
      fills.headers.authent,
      ownFuturesSign(
        ex.keys.futures.apiSecret,
        fills.path,
        fills.query,
        String(fills.headers.nonce),
      ),
    );
    assert.equal(
      custody.headers['api-sign'],
      ownCustodySign(
        ex.keys.custody.apiSecret,
        custody.path,
        custody.query,
        String(custody.headers['api-nonce']),
      ),
    );
  });
});

void describe('the fake exchange door (hand-signed requests)', () => {
  let ex: FakeExchange;
  let nonce = Date.now();
  const next = (): string => String(++nonce);

  before(async () => {
    ex = await startFakeExchange();
  });
  after(async () => {
    await ex.close();
  });

  function signedForm(path: string, body: string, n: string, key = ex.keys.spot) {
    return {
      method: 'POST' as const,
      path,
      body,
      headers: {
        'user-agent': 'signing-test',
        'content-type': 'application/x-www-form-urlencoded',
        'api-key': key.apiKey,
        'api-sign': ownSpotSign(key.apiSecret, path, n, body),
      },
    };
  }

  void it('accepts a correctly signed request and answers with a unique trace id', async () => {
    const n1 = next();
    const a = await rawRequest(ex.url, signedForm('/0/private/Balance', `nonce=${n1}`, n1));
    const n2 = next();
    const b = await rawRequest(ex.url, signedForm('/0/private/Balance', `nonce=${n2}`, n2));
    assert.equal(a.status, 200);
    assert.deepEqual((a.json as { error: unknown }).error, []);
    assert.equal(typeof a.headers['x-trace-id'], 'string');
    assert.notEqual(a.headers['x-trace-id'], b.headers['x-trace-id']);
  });

  void it('rejects a body changed after signing, a replayed nonce and an unknown key', async () => {
    const n = next();
    const ok = signedForm('/0/private/Balance', `nonce=${n}`, n);
    const tampered = await rawRequest(ex.url, { ...ok, body: `nonce=${n}&asset=XBT` });
    assert.deepEqual(tampered.json, { error: ['EAPI:Invalid signature'] });
    assert.equal((await rawRequest(ex.url, ok)).status, 200);
    const replay = await rawRequest(ex.url, ok);
    assert.deepEqual(replay.json, { error: ['EAPI:Invalid nonce'] });
    const unknown = await rawRequest(ex.url, {
      ...ok,
      headers: { ...ok.headers, 'api-key': 'nobody' },
    });
    assert.deepEqual(unknown.json, { error: ['EAPI:Invalid key'] });
  });

  void it('requires a User-Agent, GET on public paths and the right content type', async () => {
    const noUa = await rawRequest(ex.url, { method: 'GET', path: '/0/public/Time' });
    assert.equal(noUa.status, 400);
    const post = await rawRequest(ex.url, {
      method: 'POST',
      path: '/0/public/Time',
      headers: { 'user-agent': 'x' },
    });
    assert.ok(post.status >= 400 && post.status < 500, `status ${post.status}`);
    const n = next();
    const json = JSON.stringify({ nonce: Number(n), pair: 'XBTUSD' });
    const asForm = await rawRequest(ex.url, {
      ...signedForm('/0/private/Level3', json, n),
      body: json,
    });
    assert.deepEqual(asForm.json, { error: ['EGeneral:Invalid arguments'] });
  });

  void it('requires the otp of a two-factor key', async () => {
    const key = ex.keys.otp;
    const n1 = next();
    const without = await rawRequest(
      ex.url,
      signedForm('/0/private/Balance', `nonce=${n1}`, n1, key),
    );
    assert.deepEqual(without.json, { error: ['EGeneral:Permission denied'] });
    const n2 = next();
    const body = `nonce=${n2}&otp=${key.otp ?? ''}`;
    const withOtp = await rawRequest(ex.url, signedForm('/0/private/Balance', body, n2, key));
    assert.deepEqual((withOtp.json as { error: unknown }).error, []);
  });

  void it('verifies futures and custody signatures', async () => {
    ex.on('/derivatives/api/v3/fills', () => ({ result: 'success', fills: [], serverTime: 'x' }));
    ex.on(/\/withdrawal-methods$/, () => []);
    const fk = ex.keys.futures;
    const query = 'lastFillTime=2024-01-01T00%3A00%3A00Z';
    const n = next();
    const fills = await rawRequest(ex.url, {
      method: 'GET',
      path: `/derivatives/api/v3/fills?${query}`,
      headers: {
        'user-agent': 'x',
        apikey: fk.apiKey,
        nonce: n,
        authent: ownFuturesSign(fk.apiSecret, '/derivatives/api/v3/fills', query, n),
      },
    });
    assert.equal(fills.status, 200, fills.text);
    const badFills = await rawRequest(ex.url, {
      method: 'GET',
      path: `/derivatives/api/v3/fills?${query}`,
      headers: { 'user-agent': 'x', apikey: fk.apiKey, nonce: next(), authent: 'AAAA' },
    });
    assert.equal(badFills.status, 401);

    const ck = ex.keys.custody;
    const path = '/v0/insto/custody/vaults/VABCDEFGHIJKLMN/withdrawal-methods';
    const cn = next();
    const custody = await rawRequest(ex.url, {
      method: 'GET',
      path,
      headers: {
        'user-agent': 'x',
        'api-key': ck.apiKey,
        'api-nonce': cn,
        'api-sign': ownCustodySign(ck.apiSecret, path, '', cn),
      },
    });
    assert.equal(custody.status, 200, custody.text);
    const badCustody = await rawRequest(ex.url, {
      method: 'GET',
      path: `${path}?asset=BTC`,
      headers: {
        'user-agent': 'x',
        'api-key': ck.apiKey,
        'api-nonce': next(),
        'api-sign': ownCustodySign(ck.apiSecret, path, '', cn),
      },
    });
    assert.equal(badCustody.status, 401);
  });

  void it('uses a fresh random secret per key', () => {
    assert.equal(Buffer.from(ex.keys.spot.apiSecret, 'base64').length, 64);
    assert.notEqual(ex.keys.spot.apiSecret, ex.keys.futures.apiSecret);
  });
});
