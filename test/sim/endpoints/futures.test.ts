import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FUTURES_FILL_COUNT,
  futuresRfqsOf,
  futuresRoutes,
} from '../../../src/sim/endpoints/futures.js';
import type { Account } from '../../../src/sim/state/accounts.js';
import { direct, rawOf, resultOf } from './rest-support.js';

const CHECK = '/api/auth/v1/api-keys/v3/check';
const FILLS = '/derivatives/api/v3/fills';
const ACCEPT = '/derivatives/api/v3/rfqs/open-rfqs/accept-offer/:rfqUid';

interface Fill {
  fill_id: string;
  symbol: string;
  side: string;
  size: number;
  price: number;
  fillTime: string;
  fillType: string;
}

function setup() {
  const d = direct();
  const routes = futuresRoutes(d.ctx);
  const account = d.account();
  const call = (
    name: string,
    params: Record<string, unknown> = {},
    pathParams: Record<string, string> = {},
    who: Account = account,
  ) => d.call(routes, name, who, params, pathParams);
  return { d, account, call };
}

describe('futures key check', () => {
  it('describes the key that signed', async () => {
    const { d, account, call } = setup();
    const res = resultOf(await call(CHECK)) as Record<string, unknown>;
    assert.equal(res.apiKey, account.key);
    assert.equal(res.accountUid, account.accountUid);
    assert.match(String(res.iiban), /^AA[A-Z0-9]{2} [A-Z0-9]{4} [A-Z0-9]{4} [A-Z0-9]{4}$/);
    assert.equal(res.createdAt, '2023-11-14T22:13:20.000Z');
    assert.deepEqual(res.permissions, { general: 'FULL_ACCESS', transfer: 'FULL_ACCESS' });
    assert.equal(typeof res.allowedCidrBlock, 'string');
    assert.ok(Array.isArray(res.allowedCidrBlocks));
    const none = d.account({ permissions: ['funds-query'] });
    const limited = resultOf(await call(CHECK, {}, {}, none)) as Record<string, unknown>;
    assert.deepEqual(limited.permissions, { general: 'NO_ACCESS', transfer: 'NO_ACCESS' });
  });
});

describe('futures fills', () => {
  it('pages 100 at a time, newest first, with lastFillTime', async () => {
    const { call } = setup();
    const first = resultOf(await call(FILLS)) as {
      result: string;
      fills: Fill[];
      serverTime: string;
    };
    assert.equal(first.result, 'success');
    assert.equal(first.serverTime, '2023-11-14T22:13:20.000Z');
    assert.equal(first.fills.length, 100);
    const times = first.fills.map((f) => Date.parse(f.fillTime));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
    const seen = new Set(first.fills.map((f) => f.fill_id));
    let last = first.fills.at(-1)?.fillTime;
    let total = first.fills.length;
    for (;;) {
      const page = resultOf(await call(FILLS, { lastFillTime: last })) as { fills: Fill[] };
      if (page.fills.length === 0) break;
      for (const f of page.fills) {
        assert.ok(Date.parse(f.fillTime) < Date.parse(last ?? ''));
        assert.ok(!seen.has(f.fill_id));
        seen.add(f.fill_id);
      }
      total += page.fills.length;
      last = page.fills.at(-1)?.fillTime;
    }
    assert.equal(total, FUTURES_FILL_COUNT);
    const bad = rawOf(await call(FILLS, { lastFillTime: 'yesterday' }));
    assert.equal(bad.status, 400);
    assert.equal((bad.body as { result: string }).result, 'error');
  });

  it('needs at least read-only access', async () => {
    const { d, call } = setup();
    const none = d.account({ permissions: ['funds-query'] });
    const reply = rawOf(await call(FILLS, {}, {}, none));
    assert.equal(reply.status, 403);
    assert.equal((reply.body as { error: string }).error, 'insufficientPermissions');
    const reader = d.account({ permissions: ['orders-query-open'] });
    assert.equal(
      (resultOf(await call(FILLS, {}, {}, reader)) as { result: string }).result,
      'success',
    );
  });
});

describe('RFQ accept-offer', () => {
  it('accepts exactly one side at the offered price, once', async () => {
    const { account, call } = setup();
    const [rfq, other] = futuresRfqsOf(account);
    assert.ok(rfq !== undefined && other !== undefined);
    const path = { rfqUid: rfq.rfqUid };
    const both = rawOf(await call(ACCEPT, { bidAccepted: rfq.bid, askAccepted: rfq.ask }, path));
    assert.equal(both.status, 400);
    assert.deepEqual((both.body as { errors: unknown[] }).errors, [
      { code: 400, message: 'Exactly one of bidAccepted or askAccepted must be provided' },
    ]);
    assert.equal(rawOf(await call(ACCEPT, {}, path)).status, 400);
    assert.equal(rawOf(await call(ACCEPT, { bidAccepted: 'abc' }, path)).status, 400);
    assert.equal(rawOf(await call(ACCEPT, { bidAccepted: '1' }, path)).status, 409);

    const ok = resultOf(await call(ACCEPT, { bidAccepted: rfq.bid }, path));
    assert.deepEqual(ok, {
      result: 'success',
      serverTime: '2023-11-14T22:13:20.000Z',
      rfqUid: rfq.rfqUid,
    });
    const again = rawOf(await call(ACCEPT, { bidAccepted: rfq.bid }, path));
    assert.equal(again.status, 404);
    assert.equal((again.body as { result: string }).result, 'error');

    // the accepted bid is a sell fill, newest of all
    const fills = resultOf(await call(FILLS)) as { fills: Fill[] };
    assert.equal(fills.fills[0]?.side, 'sell');
    assert.equal(fills.fills[0]?.fillType, 'taker');
    assert.equal(fills.fills[0]?.price, Number(rfq.bid));
    assert.equal(fills.fills[0]?.symbol, rfq.symbol);

    assert.equal(
      (
        resultOf(await call(ACCEPT, { askAccepted: other.ask }, { rfqUid: other.rfqUid })) as {
          result: string;
        }
      ).result,
      'success',
    );
  });

  it("cannot accept someone else's RFQ and needs full access", async () => {
    const { d, call } = setup();
    const stranger = d.account();
    const [theirs] = futuresRfqsOf(stranger);
    assert.ok(theirs !== undefined);
    assert.equal(
      rawOf(await call(ACCEPT, { bidAccepted: theirs.bid }, { rfqUid: theirs.rfqUid })).status,
      404,
    );
    const reader = d.account({ permissions: ['orders-query-open'] });
    const [mine] = futuresRfqsOf(reader);
    assert.ok(mine !== undefined);
    const denied = rawOf(
      await call(ACCEPT, { bidAccepted: mine.bid }, { rfqUid: mine.rfqUid }, reader),
    );
    assert.equal(denied.status, 403);
  });
});
