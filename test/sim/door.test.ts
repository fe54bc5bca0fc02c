import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import { rawRequest } from '../support/raw-request.js';
import { errorsOf, nextNonce, signedPost } from '../support/signed-request.js';
import { startTestSim, type TestSim } from '../support/sim.js';

const UA = { 'user-agent': 'makerd-test' };

describe('simulator door: routing, envelope, trace ids', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim();
  });
  after(() => sim.close());

  it('answers public GETs in the envelope with an x-trace-id header', async () => {
    const res = await rawRequest(sim.url, { method: 'GET', path: '/0/public/Time', headers: UA });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['x-trace-id']), /^[0-9a-f-]{36}$/);
    const body = res.json as { error: string[]; result: { unixtime: number; rfc1123: string } };
    assert.deepEqual(body.error, []);
    assert.equal(typeof body.result.unixtime, 'number');
  });

  it('gives every response its own trace id, errors and 404s included', async () => {
    const a = await rawRequest(sim.url, { method: 'GET', path: '/0/public/Time', headers: UA });
    const b = await rawRequest(sim.url, { method: 'GET', path: '/nowhere', headers: UA });
    const c = await signedPost(sim.url, 'Balance', {}, { apiKey: 'nobody', apiSecret: 'AAAA' });
    const ids = [a, b, c].map((r) => String(r.headers['x-trace-id']));
    assert.equal(new Set(ids).size, 3);
    assert.equal(b.status, 404);
  });

  it('refuses POST on public endpoints with a 4xx and GET on private ones', async () => {
    const post = await rawRequest(sim.url, { method: 'POST', path: '/0/public/Time', headers: UA });
    assert.ok(post.status >= 400 && post.status < 500, `status ${post.status}`);
    const get = await rawRequest(sim.url, {
      method: 'GET',
      path: '/0/private/Balance',
      headers: UA,
    });
    assert.ok(get.status >= 400 && get.status < 500, `status ${get.status}`);
  });

  it('answers an unknown endpoint name with EGeneral:Unknown method', async () => {
    const res = await rawRequest(sim.url, { method: 'GET', path: '/0/public/Nope', headers: UA });
    assert.deepEqual(errorsOf(res), ['EGeneral:Unknown method']);
  });

  it('accepts a correctly signed form request and a JSON-bodied one', async () => {
    const form = await signedPost(sim.url, 'Balance', {}, sim.key);
    assert.deepEqual(errorsOf(form), []);
    assert.equal((form.json as { result: Record<string, string> }).result.ZUSD, '1000000.0000');
    const json = await signedPost(
      sim.url,
      'Level3',
      { pair: 'XBTUSD' },
      { ...sim.key, json: true },
    );
    assert.deepEqual(errorsOf(json), []);
  });

  it('rejects an unknown key, a wrong signature and a tampered body', async () => {
    const unknown = await signedPost(
      sim.url,
      'Balance',
      {},
      { apiKey: 'nope', apiSecret: sim.key.apiSecret },
    );
    assert.deepEqual(errorsOf(unknown), ['EAPI:Invalid key']);
    const other = Buffer.alloc(64, 7).toString('base64');
    const wrong = await signedPost(sim.url, 'Balance', {}, { ...sim.key, signWith: other });
    assert.deepEqual(errorsOf(wrong), ['EAPI:Invalid signature']);
  });

  it('checks the signature over the raw bytes: a re-encoded body fails', async () => {
    const nonce = nextNonce();
    const good = await signedPost(sim.url, 'Balance', { asset: 'ZUSD' }, { ...sim.key, nonce });
    assert.deepEqual(errorsOf(good), []);
    // Same fields, different bytes (%20 vs +): the signature was computed over the other form.
    const res = await rawRequest(sim.url, {
      method: 'POST',
      path: '/0/private/Balance',
      headers: {
        ...UA,
        'content-type': 'application/x-www-form-urlencoded',
        'api-key': sim.key.apiKey,
        'api-sign': 'AAAA',
      },
      body: `nonce=${nextNonce()}&asset=ZUSD`,
    });
    assert.deepEqual(errorsOf(res), ['EAPI:Invalid signature']);
  });

  it('requires strictly increasing nonces per key', async () => {
    const nonce = nextNonce();
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, { ...sim.key, nonce })), []);
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, { ...sim.key, nonce })), [
      'EAPI:Invalid nonce',
    ]);
    const lower = String(BigInt(nonce) - 5n);
    assert.deepEqual(
      errorsOf(await signedPost(sim.url, 'Balance', {}, { ...sim.key, nonce: lower })),
      ['EAPI:Invalid nonce'],
    );
    assert.deepEqual(
      errorsOf(await signedPost(sim.url, 'Balance', {}, { ...sim.key, nonce: 'abc' })),
      ['EAPI:Invalid nonce'],
    );
  });

  it('lets nonces inside a key window arrive out of order, once each', async () => {
    const k = sim.addAccount({ nonceWindow: 1000 });
    const high = BigInt(nextNonce()) + 10_000n;
    const send = (n: bigint): Promise<string[]> =>
      signedPost(sim.url, 'Balance', {}, { ...k, nonce: String(n) }).then(errorsOf);
    assert.deepEqual(await send(high), []);
    assert.deepEqual(await send(high - 10n), []);
    assert.deepEqual(await send(high - 10n), ['EAPI:Invalid nonce']);
    assert.deepEqual(await send(high - 2000n), ['EAPI:Invalid nonce']);
  });

  it('enforces the permission table', async () => {
    const k = sim.addAccount({ permissions: ['orders-query-open'] });
    const balance = await signedPost(sim.url, 'Balance', {}, k);
    assert.deepEqual(errorsOf(balance), ['EGeneral:Permission denied']);
    const open = await signedPost(sim.url, 'OpenOrders', {}, k);
    assert.deepEqual(errorsOf(open), []);
  });

  it('asks for the otp when the key has one', async () => {
    const k = sim.addAccount({ otp: '123456' });
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, k)), [
      'EGeneral:Permission denied',
    ]);
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', { otp: '123456' }, k)), []);
  });

  it('refuses a private request whose content type it cannot read', async () => {
    const res = await rawRequest(sim.url, {
      method: 'POST',
      path: '/0/private/Balance',
      headers: { ...UA, 'content-type': 'text/plain', 'api-key': sim.key.apiKey, 'api-sign': 'x' },
      body: 'nonce=1',
    });
    assert.deepEqual(errorsOf(res), ['EGeneral:Invalid arguments:Content-Type']);
  });
});

describe('simulator door under a manual clock: lockout and the REST counter', () => {
  let sim: TestSim;
  const clock = new ManualClock(1_750_000_000_000);
  before(async () => {
    sim = await startTestSim({
      clock,
      config: { invalid_key_lockout: { threshold: 3, duration_ms: 10_000 } },
    });
  });
  after(() => sim.close());

  it('locks an address out after repeated invalid keys, then lets it back', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await signedPost(sim.url, 'Balance', {}, { apiKey: `bad-${i}`, apiSecret: 'AAAA' });
      assert.deepEqual(errorsOf(r), ['EAPI:Invalid key']);
    }
    const locked = await signedPost(sim.url, 'Balance', {}, sim.key);
    assert.deepEqual(errorsOf(locked), ['EGeneral:Temporary lockout']);
    await clock.advance(10_001);
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, sim.key)), []);
  });

  it('refuses calls past the tier maximum with EAPI:Rate limit exceeded, and decays', async () => {
    const k = sim.addAccount({ tier: 'starter' });
    // Starter: max 15, decay 0.33/s. The clock stands still, so 15 calls fit and the 16th not.
    for (let i = 0; i < 15; i++) {
      assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, k)), [], `call ${i + 1}`);
    }
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, k)), [
      'EAPI:Rate limit exceeded',
    ]);
    const state = (await sim.admin('GET', '/_sim/state')).body as {
      rest_counter: Record<string, { level: number; max: number; restricted: boolean }>;
      rejections: Record<string, number>;
    };
    assert.deepEqual(state.rest_counter[k.apiKey], { level: 15, max: 15, restricted: true });
    assert.ok((state.rejections['EAPI:Rate limit exceeded'] ?? 0) >= 1);
    // After the restriction and enough decay for one point, calls pass again.
    await clock.advance(4_000);
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, k)), []);
  });

  it('charges ledger and trade-history reads 2 points', async () => {
    const k = sim.addAccount({ tier: 'pro' });
    await signedPost(sim.url, 'Ledgers', {}, k);
    await signedPost(sim.url, 'Balance', {}, k);
    const state = (await sim.admin('GET', '/_sim/state')).body as {
      rest_counter: Record<string, { level: number }>;
    };
    assert.equal(state.rest_counter[k.apiKey]?.level, 3);
  });

  it('throttles public requests per client past the configured limit', async () => {
    const local = await startTestSim({
      clock,
      config: { public_limit: { max: 3, decay_per_sec: 1 } },
    });
    try {
      const get = (): Promise<string[]> =>
        rawRequest(local.url, { method: 'GET', path: '/0/public/Time', headers: UA }).then(
          errorsOf,
        );
      assert.deepEqual(await get(), []);
      assert.deepEqual(await get(), []);
      assert.deepEqual(await get(), []);
      const [err] = await get();
      assert.match(err ?? '', /^EService:Throttled: \d+$/);
      await clock.advance(1_000);
      assert.deepEqual(await get(), []);
    } finally {
      await local.close();
    }
  });
});
