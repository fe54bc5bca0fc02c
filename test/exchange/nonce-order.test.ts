/**
 * Nonces in order without a window: a key whose nonce window is 0 refuses any nonce not above the
 * last one it received, so the client lets one signed call of the key be on the wire at a time,
 * next by priority. With a window declared, calls overlap. Every test runs against a real HTTP
 * server (the fake exchange) and asserts what it received, and in which order.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { InvalidInputError, SpotClient } from '../../src/index.js';
import { LIMIT_BUY, clientFor, recordSigned, settle } from '../support/client-for.js';
import {
  resultOf,
  startFakeExchange,
  type FakeExchange,
  type Reply,
} from '../support/fake-exchange.js';

const RESULTS: Readonly<Record<string, unknown>> = {
  Balance: { ZUSD: '1000.0000' },
  OpenOrders: { open: {} },
  AddOrder: { descr: { order: 'buy 1 XBTUSD @ limit 37500.0' }, txid: ['OAAAAA-BBBBB-CCCCCC'] },
  CancelOrder: { count: 1 },
  CancelAll: { count: 0 },
};

let ex: FakeExchange | undefined;
let clients: SpotClient[] = [];

afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await ex?.close();
  ex = undefined;
});

/** A fake exchange answering every endpoint of RESULTS at once; its spot key's window as given. */
async function exchange(nonceWindow?: number): Promise<FakeExchange> {
  ex = await startFakeExchange(nonceWindow === undefined ? {} : { nonceWindow });
  for (const [name, result] of Object.entries(RESULTS)) ex.on(name, () => resultOf(result));
  return ex;
}

function client(fake: FakeExchange, nonceWindow?: number): SpotClient {
  const c = clientFor(fake, nonceWindow === undefined ? {} : { nonceWindow });
  clients.push(c);
  return c;
}

/**
 * Answers every endpoint of RESULTS after a random 0-3 ms, so calls that overlapped would finish,
 * and draw their next nonces, in a shuffled order; counts the requests being answered at once.
 */
function answerAfterRandomDelays(fake: FakeExchange): { readonly maxInFlight: () => number } {
  let inFlight = 0;
  let max = 0;
  for (const [name, result] of Object.entries(RESULTS)) {
    fake.on(name, async (): Promise<Reply> => {
      inFlight++;
      max = Math.max(max, inFlight);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
      inFlight--;
      return resultOf(result);
    });
  }
  return { maxInFlight: () => max };
}

/** Fifty private calls of every kind at once: reads, order entry, a write. */
function fiftyMixedCalls(c: SpotClient): Promise<unknown>[] {
  const kinds = [
    () => c.balance(),
    () => c.addOrder(LIMIT_BUY),
    () => c.openOrders(),
    () => c.cancelOrder({ txid: 'OAAAAA-BBBBB-CCCCCC' }),
    () => c.cancelAll(),
  ];
  return Array.from({ length: 50 }, (_, i) =>
    (kinds[i % kinds.length] as () => Promise<unknown>)(),
  );
}

function refusals(fake: FakeExchange): string[] {
  return fake.requests.filter((r) => !r.accepted).map((r) => `${r.name}: ${r.rejection}`);
}

function arrivals(fake: FakeExchange): string[] {
  return fake.requests.map((r) => r.name);
}

/** An answer the test lets go of: the call that asked for it keeps the key's turn until then. */
function held(): { readonly reply: Promise<Reply>; readonly release: () => void } {
  let release!: () => void;
  const reply = new Promise<Reply>(
    (resolve) => (release = () => resolve(resultOf(RESULTS.Balance))),
  );
  return { reply, release };
}

void describe('a key without a nonce window (the default)', () => {
  void it('50 concurrent private calls of mixed endpoints: all accepted, nonces arrive in order', async () => {
    const fake = await exchange();
    const server = answerAfterRandomDelays(fake);
    const c = client(fake);

    const results = await Promise.allSettled(fiftyMixedCalls(c));

    assert.deepEqual(
      results.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
      [],
    );
    assert.deepEqual(refusals(fake), [], 'the exchange refused nonces');
    assert.equal(fake.requests.length, 50, 'one request per call: no retry was needed');
    const nonces = fake.requests.map((r) => BigInt(r.nonce ?? '0'));
    for (let i = 1; i < nonces.length; i++) {
      assert.ok((nonces[i] as bigint) > (nonces[i - 1] as bigint), `arrival ${i} below the last`);
    }
    assert.equal(server.maxInFlight(), 1, 'more than one call of the key on the wire at once');
  });

  void it("waiting calls go by priority: 'high' first, then order entry, then the rest", async () => {
    const fake = await exchange();
    const first = held();
    fake.on('Balance', () =>
      fake.requests.length === 1 ? first.reply : resultOf(RESULTS.Balance),
    );
    const c = client(fake);

    const calls: Promise<unknown>[] = [c.balance()];
    await fake.waitForRequests(1);
    calls.push(c.balance(), c.openOrders(), c.addOrder(LIMIT_BUY), c.balance());
    calls.push(c.cancelAll({ priority: 'high' }));
    calls.push(c.cancelOrder({ txid: 'OAAAAA-BBBBB-CCCCCC' }));
    // Every call has reached the key's line (no I/O on the way: no limiter, in-process nonces).
    await settle();
    assert.deepEqual(arrivals(fake), ['Balance'], 'only the first call went out');
    first.release();
    await Promise.all(calls);

    assert.deepEqual(arrivals(fake), [
      'Balance',
      'CancelAll',
      'AddOrder',
      'CancelOrder',
      'Balance',
      'OpenOrders',
      'Balance',
    ]);
    assert.deepEqual(refusals(fake), []);
  });

  void it('a call aborted while it waits rejects with its reason; no nonce drawn, nothing sent', async () => {
    const fake = await exchange();
    const first = held();
    fake.on('Balance', () => first.reply);
    const c = client(fake);
    const signed = recordSigned();
    try {
      const calls: Promise<unknown>[] = [c.balance()];
      await fake.waitForRequests(1);
      const ac = new AbortController();
      const aborted = c.addOrder(LIMIT_BUY, { signal: ac.signal });
      calls.push(c.openOrders());
      await settle();
      const reason = new Error('the quote moved');
      ac.abort(reason);
      await assert.rejects(aborted, (err) => err === reason);
      first.release();
      await Promise.all(calls);

      assert.deepEqual(arrivals(fake), ['Balance', 'OpenOrders']);
      assert.deepEqual(
        signed.messages.map((m) => m.endpoint),
        ['Balance', 'OpenOrders'],
        'the aborted call drew no nonce',
      );
      assert.deepEqual(refusals(fake), []);
    } finally {
      signed.stop();
    }
  });

  void it('public calls do not wait for the key', async () => {
    const fake = await exchange();
    const first = held();
    fake.on('Balance', () => first.reply);
    const c = client(fake);
    const balance = c.balance();
    await fake.waitForRequests(1);
    const time = await c.time();
    assert.equal(time.result.unixtime, 1_700_000_000);
    assert.deepEqual(arrivals(fake), ['Balance', 'Time']);
    first.release();
    await balance;
  });
});

void describe('a key with a nonce window', () => {
  void it('calls overlap within it, all accepted', async () => {
    const fake = await exchange(5_000);
    const server = answerAfterRandomDelays(fake);
    const c = client(fake, 5_000);

    const results = await Promise.allSettled(fiftyMixedCalls(c));

    assert.deepEqual(
      results.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
      [],
    );
    assert.deepEqual(refusals(fake), []);
    assert.equal(fake.requests.length, 50);
    assert.ok(server.maxInFlight() > 1, `at most ${server.maxInFlight()} in flight at once`);
  });

  void it('nonceWindow must be a whole number of milliseconds, at least 0', () => {
    for (const bad of [-1, 2.5, Number.NaN]) {
      assert.throws(
        () => new SpotClient({ baseUrl: 'http://127.0.0.1:1', nonceWindow: bad }),
        (err) => err instanceof InvalidInputError && err.field === 'nonceWindow',
        String(bad),
      );
    }
  });
});
