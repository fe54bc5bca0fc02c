import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import { rawRequest } from '../support/raw-request.js';
import { errorsOf, signedPost } from '../support/signed-request.js';
import { startTestSim, type TestSim } from '../support/sim.js';

const UA = { 'user-agent': 'makerd-test' };
const T0 = Date.parse('2026-03-01T12:00:00Z');

interface StateBody {
  open_orders: {
    txid: string;
    key: string;
    pair: string;
    side: string;
    price: string | null;
    userref: number;
  }[];
  ratecount: Record<string, Record<string, { level: number; max: number; charged: number }>>;
  balances: Record<string, Record<string, { balance: string; hold_trade: string }>>;
  rejections: Record<string, number>;
  dead_man: Record<string, { trigger_at: number }>;
  trade_count: number;
}

describe('simulator admin API, status modes and the dead man', () => {
  let sim: TestSim;
  const clock = new ManualClock(T0);
  before(async () => {
    sim = await startTestSim({ clock });
  });
  after(() => sim.close());

  const state = async (): Promise<StateBody> =>
    (await sim.admin('GET', '/_sim/state')).body as StateBody;
  const placeLimit = (price: string, side = 'buy', key = sim.key): Promise<string[]> =>
    signedPost(
      sim.url,
      'AddOrder',
      { pair: 'XBTUSD', type: side, ordertype: 'limit', price, volume: '0.01' },
      key,
    ).then(errorsOf);

  it('creates and updates keys through POST /_sim/accounts', async () => {
    const secret = Buffer.alloc(32, 3).toString('base64');
    const created = await sim.admin('POST', '/_sim/accounts', {
      key: 'admin-made',
      secret,
      tier: 'pro',
      permissions: ['funds-query'],
      balances: { ZUSD: '250.5' },
    });
    assert.equal(created.status, 200);
    const res = await signedPost(
      sim.url,
      'Balance',
      {},
      { apiKey: 'admin-made', apiSecret: secret },
    );
    assert.deepEqual(errorsOf(res), []);
    assert.equal(Number((res.json as { result: Record<string, string> }).result.ZUSD), 250.5);
    const bad = await sim.admin('POST', '/_sim/accounts', { key: 'x', secret, tier: 'gold' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /account\.tier/);
  });

  it('shows open orders, balances with holds and ratecounts in GET /_sim/state', async () => {
    assert.deepEqual(await placeLimit('50000.0'), []);
    const s = await state();
    const mine = s.open_orders.filter((o) => o.key === sim.key.apiKey);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.pair, 'XXBTZUSD');
    assert.equal(mine[0]?.side, 'buy');
    assert.equal(mine[0]?.price, '50000.0');
    assert.equal(mine[0]?.userref, 0);
    assert.equal(s.ratecount[sim.key.apiKey]?.XXBTZUSD?.level, 1);
    assert.equal(s.ratecount[sim.key.apiKey]?.XXBTZUSD?.max, 60);
    assert.equal(s.ratecount[sim.key.apiKey]?.XXBTZUSD?.charged, 1, 'points charged since start');
    assert.ok(Number(s.balances[sim.key.apiKey]?.ZUSD?.hold_trade) >= 500);
  });

  it("lists one key's open orders with pair, price and userref in GET /_sim/orders?key=", async () => {
    const k = sim.addAccount({ tier: 'pro' });
    const other = sim.addAccount();
    const add = (key: typeof k, price: string, userref: number) =>
      signedPost(
        sim.url,
        'AddOrder',
        { pair: 'XBTUSD', type: 'buy', ordertype: 'limit', price, volume: '0.01', userref },
        key,
      ).then(errorsOf);
    assert.deepEqual(await add(k, '45000.5', 123_456), []);
    assert.deepEqual(await add(other, '45001', 7), []);
    const res = await sim.admin('GET', `/_sim/orders?key=${encodeURIComponent(k.apiKey)}`);
    assert.equal(res.status, 200);
    const body = res.body as {
      time: number;
      key: string;
      open_orders: { key: string; pair: string; side: string; price: string; userref: number }[];
    };
    assert.equal(body.key, k.apiKey);
    assert.equal(body.time, clock.now() / 1000);
    assert.equal(body.open_orders.length, 1);
    assert.deepEqual(
      (({ key, pair, side, price, userref }) => ({ key, pair, side, price, userref }))(
        body.open_orders[0]!,
      ),
      { key: k.apiKey, pair: 'XXBTZUSD', side: 'buy', price: '45000.5', userref: 123_456 },
    );
    // The same row as GET /_sim/state shows.
    const full = (await state()).open_orders.filter((o) => o.key === k.apiKey);
    assert.deepEqual(full, body.open_orders);

    assert.equal((body as { closed_orders?: unknown }).closed_orders, undefined);

    // With closed=1, a cancelled order shows among the closed ones with its open time.
    const txid = (open: { txid: string }[]): string => open[0]!.txid;
    const cancelled = await signedPost(
      sim.url,
      'CancelOrder',
      { txid: txid(body.open_orders as unknown as { txid: string }[]) },
      k,
    ).then(errorsOf);
    assert.deepEqual(cancelled, []);
    const withClosed = await sim.admin(
      'GET',
      `/_sim/orders?key=${encodeURIComponent(k.apiKey)}&closed=1`,
    );
    const closedBody = withClosed.body as {
      open_orders: unknown[];
      closed_orders: { status: string; userref: number; opentm: number }[];
    };
    assert.equal(closedBody.open_orders.length, 0);
    assert.deepEqual(
      closedBody.closed_orders.map((o) => [o.status, o.userref, o.opentm]),
      [['canceled', 123_456, clock.now() / 1000]],
    );

    const missing = await sim.admin('GET', '/_sim/orders');
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /"field":"key"/);
    const unknown = await sim.admin('GET', '/_sim/orders?key=nobody');
    assert.equal(unknown.status, 404);
  });

  it('serves SystemStatus from POST /_sim/status and enforces cancel_only and post_only', async () => {
    await sim.admin('POST', '/_sim/status', { status: 'cancel_only' });
    const status = await rawRequest(sim.url, {
      method: 'GET',
      path: '/0/public/SystemStatus',
      headers: UA,
    });
    assert.equal((status.json as { result: { status: string } }).result.status, 'cancel_only');
    assert.deepEqual(await placeLimit('50000.0'), ['EService:Market in cancel_only mode']);

    await sim.admin('POST', '/_sim/status', { status: 'post_only' });
    assert.deepEqual(await placeLimit('50000.0'), ['EService:Market in post_only mode']);
    const post = await signedPost(
      sim.url,
      'AddOrder',
      {
        pair: 'XBTUSD',
        type: 'buy',
        ordertype: 'limit',
        price: '50000.0',
        volume: '0.01',
        oflags: 'post',
      },
      sim.key,
    );
    assert.deepEqual(errorsOf(post), []);

    await sim.admin('POST', '/_sim/status', { status: 'maintenance' });
    assert.deepEqual(await placeLimit('50000.0'), ['EService:Unavailable']);
    const cancel = await signedPost(sim.url, 'CancelAll', {}, sim.key);
    assert.deepEqual(errorsOf(cancel), ['EService:Unavailable']);
    await sim.admin('POST', '/_sim/status', { status: 'online' });
    assert.deepEqual(await placeLimit('50000.0'), []);
  });

  it('derives time_to_start_s and phase of scheduled maintenance and drops it when it starts', async () => {
    const start = new Date(T0 + 20 * 60_000).toISOString();
    const end = new Date(T0 + 80 * 60_000).toISOString();
    const later = new Date(T0 + 5 * 3600_000).toISOString();
    const later2 = new Date(T0 + 6 * 3600_000).toISOString();
    await sim.admin('POST', '/_sim/status', {
      upcoming_maintenance: [
        { title: 'Later', expected_start_utc: later, expected_end_utc: later2 },
        { title: 'Soon', expected_start_utc: start, expected_end_utc: end },
      ],
      emergency: [{ title: 'Websocket outage', affected_services: ['spot_ws'] }],
    });
    const now = clock.now();
    const get = async (): Promise<{
      upcoming_maintenance: {
        title: string;
        time_to_start_s: number;
        phase: string;
        cancel_before_utc: string;
      }[];
      emergency: { title: string; incident_status: string; event_id: number }[];
    }> =>
      (
        (await rawRequest(sim.url, { method: 'GET', path: '/0/public/SystemStatus', headers: UA }))
          .json as {
          result: never;
        }
      ).result;
    const first = await get();
    assert.deepEqual(
      first.upcoming_maintenance.map((m) => m.title),
      ['Soon', 'Later'],
    );
    assert.equal(
      first.upcoming_maintenance[0]?.time_to_start_s,
      Math.floor((T0 + 20 * 60_000 - now) / 1000),
    );
    assert.equal(first.upcoming_maintenance[0]?.phase, 'approaching_30m');
    assert.equal(first.upcoming_maintenance[1]?.phase, 'announced');
    assert.equal(first.emergency[0]?.incident_status, 'identified');
    const schedule = await rawRequest(sim.url, {
      method: 'GET',
      path: '/0/public/MaintenanceSchedule',
      headers: UA,
    });
    assert.equal((schedule.json as { result: { events: unknown[] } }).result.events.length, 2);

    await clock.advance(T0 + 20 * 60_000 - clock.now());
    const second = await get();
    assert.deepEqual(
      second.upcoming_maintenance.map((m) => m.title),
      ['Later'],
    );
    await sim.admin('POST', '/_sim/status', {
      emergency: [
        {
          event_id: first.emergency[0]?.event_id,
          title: 'Websocket outage',
          incident_status: 'resolved',
        },
      ],
    });
    assert.deepEqual((await get()).emergency, []);
  });

  it('fires CancelAllOrdersAfter: cancels every order of the key and adds the age penalties', async () => {
    const k = sim.addAccount();
    assert.deepEqual(await placeLimit('40000.0', 'buy', k), []);
    assert.deepEqual(await placeLimit('41000.0', 'buy', k), []);
    const armed = await signedPost(sim.url, 'CancelAllOrdersAfter', { timeout: 10 }, k);
    assert.deepEqual(errorsOf(armed), []);
    const result = (armed.json as { result: { currentTime: string; triggerTime: string } }).result;
    assert.equal(Date.parse(result.triggerTime) - Date.parse(result.currentTime), 10_000);
    assert.ok((await state()).dead_man[k.apiKey] !== undefined);

    await clock.advance(9_000);
    assert.equal((await state()).open_orders.filter((o) => o.key === k.apiKey).length, 2);
    await clock.advance(1_100);
    const s = await state();
    assert.equal(s.open_orders.filter((o) => o.key === k.apiKey).length, 0);
    // Two adds (+1 each, decayed at 1/s to 0 by the firing at +10 s), then two cancels of orders
    // 10 s old (+5 each), read 0.1 s later.
    assert.ok(Math.abs((s.ratecount[k.apiKey]?.XXBTZUSD?.level ?? 0) - 9.9) < 1e-6);
    assert.equal(s.dead_man[k.apiKey], undefined);
  });

  it('disarms the dead man with timeout 0 and rejects a timeout of a day', async () => {
    const k = sim.addAccount();
    assert.deepEqual(await placeLimit('40000.0', 'buy', k), []);
    await signedPost(sim.url, 'CancelAllOrdersAfter', { timeout: 5 }, k);
    const off = await signedPost(sim.url, 'CancelAllOrdersAfter', { timeout: 0 }, k);
    assert.equal((off.json as { result: { triggerTime: string } }).result.triggerTime, '0');
    await clock.advance(6_000);
    assert.equal((await state()).open_orders.filter((o) => o.key === k.apiKey).length, 1);
    const day = await signedPost(sim.url, 'CancelAllOrdersAfter', { timeout: 86400 }, k);
    assert.match(errorsOf(day)[0] ?? '', /^EGeneral:Invalid arguments/);
  });

  it('injects faults: unavailable, throttled, 5xx, per path, and {} clears', async () => {
    await sim.admin('POST', '/_sim/faults', { unavailable_rate: 1 });
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, sim.key)), [
      'EService:Unavailable',
    ]);
    await sim.admin('POST', '/_sim/faults', { throttled_rate: 1, throttle_seconds: 7 });
    const [throttled] = errorsOf(await signedPost(sim.url, 'Balance', {}, sim.key));
    assert.equal(throttled, `EService:Throttled: ${Math.floor(clock.now() / 1000) + 7}`);
    await sim.admin('POST', '/_sim/faults', { http_5xx_rate: 1, paths: ['Balance'] });
    assert.equal((await signedPost(sim.url, 'Balance', {}, sim.key)).status, 502);
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'OpenOrders', {}, sim.key)), []);
    await sim.admin('POST', '/_sim/faults', {});
    assert.deepEqual(errorsOf(await signedPost(sim.url, 'Balance', {}, sim.key)), []);
  });

  it('drops the response after processing: the order is on the book although no answer came', async () => {
    const k = sim.addAccount();
    await sim.admin('POST', '/_sim/faults', { drop_response_rate: 1, paths: ['AddOrder'] });
    await assert.rejects(placeLimit('39000.0', 'buy', k));
    await sim.admin('POST', '/_sim/faults', {});
    const mine = (await state()).open_orders.filter((o) => o.key === k.apiKey);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.price, '39000.0');
  });

  it('fires an armed dead man when the engine comes back from maintenance', async () => {
    const k = sim.addAccount();
    assert.deepEqual(await placeLimit('40000.0', 'buy', k), []);
    await signedPost(sim.url, 'CancelAllOrdersAfter', { timeout: 600 }, k);
    await sim.admin('POST', '/_sim/status', { status: 'maintenance' });
    await clock.advance(1_000);
    assert.equal((await state()).open_orders.filter((o) => o.key === k.apiKey).length, 1);
    await sim.admin('POST', '/_sim/status', { status: 'online' });
    assert.equal((await state()).open_orders.filter((o) => o.key === k.apiKey).length, 0);
  });

  it('steers the background market through POST /_sim/market', async () => {
    const res = await sim.admin('POST', '/_sim/market', {
      fair_value: { 'XBT/USD': '70000' },
      background: 'resume',
    });
    const body = res.body as { background: string; fair_value: Record<string, string> };
    assert.equal(res.status, 200);
    assert.equal(body.background, 'running');
    assert.equal(Number(body.fair_value.XXBTZUSD), 70000);
    const paused = await sim.admin('POST', '/_sim/market', { background: 'pause' });
    assert.equal((paused.body as { background: string }).background, 'paused');
    const bad = await sim.admin('POST', '/_sim/market', { fair_value: { DOGEUSD: '1' } });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /market\.fair_value\.DOGEUSD/);
  });

  it('answers admin requests from loopback only, with 404 for unknown admin routes', async () => {
    const res = await sim.admin('POST', '/_sim/nothing', {});
    assert.equal(res.status, 404);
  });
});
