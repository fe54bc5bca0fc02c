import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OTC_HISTORY_SIZE, otcRoutes } from '../../../src/sim/endpoints/otc.js';
import { direct, rawOf, rejectsWith, resultOf } from './rest-support.js';

interface OtcTrade {
  txid: string;
  order_date: number;
  base_asset: string;
  quote_asset: string;
  direction: string;
  amount: string;
  price: string;
  total: string;
}

const NOW_S = 1_700_000_000;

function setup() {
  const d = direct();
  const routes = otcRoutes(d.ctx);
  const account = d.account();
  const call = (params: Record<string, unknown>) =>
    d.call(routes, 'GetOtcSpotTradeHistory', account, params);
  const list = async (params: Record<string, unknown>) =>
    resultOf(await call(params)) as OtcTrade[];
  return { call, list };
}

describe('GetOtcSpotTradeHistory', () => {
  it('pages newest first with default 100, capped at 1000', async () => {
    const { list } = setup();
    const range = { start_date: 0, end_date: NOW_S };
    const first = await list(range);
    assert.equal(first.length, 100);
    const dates = first.map((t) => t.order_date);
    assert.deepEqual(
      dates,
      [...dates].sort((a, b) => b - a),
    );
    assert.equal((await list({ ...range, limit: 0 })).length, 100);
    const all = await list({ ...range, limit: 5000 });
    // one record in ten is deleted or not a client trade and never shown
    assert.equal(all.length, OTC_HISTORY_SIZE - OTC_HISTORY_SIZE / 10);
    const second = await list({ ...range, offset: 100, limit: 100 });
    assert.deepEqual(second, all.slice(100, 200));
    assert.deepEqual(await list({ ...range, offset: 10_000 }), []);
    const t = first[0];
    assert.ok(t !== undefined);
    assert.equal(t.quote_asset, 'USD');
    assert.ok(['buy', 'sell'].includes(t.direction));
  });

  it('selects by inclusive Unix-second bounds', async () => {
    const { list } = setup();
    const all = await list({ start_date: 0, end_date: NOW_S, limit: 1000 });
    const pick = all[10];
    assert.ok(pick !== undefined);
    const s = Math.floor(pick.order_date / 1000);
    const window = await list({ start_date: s, end_date: s + 1 });
    assert.ok(window.some((t) => t.txid === pick.txid));
    assert.ok(window.every((t) => t.order_date >= s * 1000 && t.order_date < (s + 2) * 1000));
  });

  it('refuses bad input with EGeneral:Invalid arguments', async () => {
    const { call } = setup();
    await rejectsWith(call({ start_date: 100, end_date: 100 }), 'EGeneral:Invalid arguments');
    const missing = rawOf(await call({ end_date: 100 }));
    assert.equal(missing.status, 200);
    const body = missing.body as { error: string[]; errors: Record<string, unknown>[] };
    assert.deepEqual(body.error, ['EGeneral:Invalid arguments']);
    assert.equal(body.errors[0]?.field, 'start_date');
    assert.equal(body.errors[0]?.errorClass, 'General');
    const negative = rawOf(await call({ start_date: 1, end_date: 100, offset: -1 })).body as {
      errors: Record<string, unknown>[];
    };
    assert.deepEqual([negative.errors[0]?.field, negative.errors[0]?.type], ['offset', 'negative']);
    const notInt = rawOf(await call({ start_date: 1.5, end_date: 100 })).body as {
      errors: Record<string, unknown>[];
    };
    assert.equal(notInt.errors[0]?.type, 'not_integer');
    const limit = rawOf(await call({ start_date: 1, end_date: 100, limit: -5 })).body as {
      errors: Record<string, unknown>[];
    };
    assert.equal(limit.errors[0]?.field, 'limit');
  });
});
