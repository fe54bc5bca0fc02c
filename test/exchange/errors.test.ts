/**
 * The spec's error table, string by string, and the error bodies of the other families over the
 * wire: each becomes a typed error that keeps what the exchange said and the trace id.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import {
  CustodyProblemError,
  ERROR_CLASSES,
  ExchangeError,
  FuturesError,
  IndexUnavailableError,
  InsufficientFundsError,
  InvalidArgumentsError,
  InvalidStrategyIdError,
  OrderRateLimitExceededError,
  RateLimitExceededError,
  ThrottledError,
  UnknownExchangeError,
  errorFromString,
  parseErrorString,
  type SpotClient,
} from '../../src/index.js';
import {
  FixtureServer,
  envelope,
  errorEnvelope,
  fixtureClient,
} from '../support/fixture-server.js';

const CTX = { traceId: 'trace-unit', endpoint: 'Test' };

/**
 * The spec's error table verbatim (spot-rest-api.md, Errors), with the parts its format
 * `<severity><category>:<message>[:<additional text>]` gives. The throttled entry carries a
 * concrete timestamp in place of `<UNIX timestamp>`.
 */
const SPEC_ERRORS: readonly (readonly [
  raw: string,
  category: string,
  message: string,
  extra?: string,
])[] = [
  ['EGeneral:Invalid arguments', 'General', 'Invalid arguments'],
  [
    'EGeneral:Invalid arguments:Index unavailable',
    'General',
    'Invalid arguments',
    'Index unavailable',
  ],
  ['EGeneral:Temporary lockout', 'General', 'Temporary lockout'],
  ['EGeneral:Permission denied', 'General', 'Permission denied'],
  ['EService:Unavailable', 'Service', 'Unavailable'],
  ['EService:Market in cancel_only mode', 'Service', 'Market in cancel_only mode'],
  ['EService:Market in post_only mode', 'Service', 'Market in post_only mode'],
  ['EService:Deadline elapsed', 'Service', 'Deadline elapsed'],
  ['EService:Throttled: 1700000000', 'Service', 'Throttled', '1700000000'],
  ['EAPI:Invalid key', 'API', 'Invalid key'],
  ['EAPI:Invalid signature', 'API', 'Invalid signature'],
  ['EAPI:Invalid nonce', 'API', 'Invalid nonce'],
  ['EAPI:Rate limit exceeded', 'API', 'Rate limit exceeded'],
  ['EOrder:Cannot open position', 'Order', 'Cannot open position'],
  ['EOrder:Margin allowance exceeded', 'Order', 'Margin allowance exceeded'],
  ['EOrder:Margin level too low', 'Order', 'Margin level too low'],
  ['EOrder:Margin position size exceeded', 'Order', 'Margin position size exceeded'],
  ['EOrder:Insufficient margin', 'Order', 'Insufficient margin'],
  ['EOrder:Insufficient funds', 'Order', 'Insufficient funds'],
  ['EOrder:Order minimum not met', 'Order', 'Order minimum not met'],
  ['EOrder:Cost minimum not met', 'Order', 'Cost minimum not met'],
  ['EOrder:Tick size check failed', 'Order', 'Tick size check failed'],
  ['EOrder:Orders limit exceeded', 'Order', 'Orders limit exceeded'],
  ['EOrder:Rate limit exceeded', 'Order', 'Rate limit exceeded'],
  ['EOrder:Domain rate limit exceeded', 'Order', 'Domain rate limit exceeded'],
  ['EOrder:Positions limit exceeded', 'Order', 'Positions limit exceeded'],
  ['EOrder:Unknown position', 'Order', 'Unknown position'],
  ['EBM:limit exceeded:CAL', 'BM', 'limit exceeded', 'CAL'],
  ['EFunding:Max fee exceeded', 'Funding', 'Max fee exceeded'],
  [
    'EEarnings:Below min:(De)allocation operation amount less than minimum',
    'Earnings',
    'Below min',
    '(De)allocation operation amount less than minimum',
  ],
  [
    'EEarnings:Busy:Another (de)allocation for the same strategy is in progress',
    'Earnings',
    'Busy',
    'Another (de)allocation for the same strategy is in progress',
  ],
  ['EEarnings:Busy. Try again in a few minutes.', 'Earnings', 'Busy. Try again in a few minutes.'],
  [
    "EEarnings:Permission denied:The user's tier is not high enough",
    'Earnings',
    'Permission denied',
    "The user's tier is not high enough",
  ],
  [
    'EGeneral:Invalid arguments:Invalid strategy ID',
    'General',
    'Invalid arguments',
    'Invalid strategy ID',
  ],
  [
    'EEarnings:Insufficient funds:Insufficient funds to complete the (de)allocation request',
    'Earnings',
    'Insufficient funds',
    'Insufficient funds to complete the (de)allocation request',
  ],
  [
    'EEarnings:Above max:The allocation exceeds user limit for the strategy',
    'Earnings',
    'Above max',
    'The allocation exceeds user limit for the strategy',
  ],
  [
    'EEarnings:Above max:The allocation exceeds the total strategy limit',
    'Earnings',
    'Above max',
    'The allocation exceeds the total strategy limit',
  ],
];

describe('the spec error table through errorFromString', () => {
  it('has every row of the table (37 strings)', () => {
    assert.equal(SPEC_ERRORS.length, 37);
    assert.equal(new Set(SPEC_ERRORS.map(([raw]) => raw)).size, 37);
  });

  for (const [raw, category, message, extra] of SPEC_ERRORS) {
    it(`maps ${JSON.stringify(raw)} to a catalogued class`, () => {
      const err = errorFromString(raw, CTX);
      assert.ok(err instanceof ExchangeError);
      assert.ok(
        !(err instanceof UnknownExchangeError),
        `${raw} fell through to ${err.constructor.name}`,
      );
      assert.ok(
        ERROR_CLASSES.some((cls) => err instanceof cls),
        `${err.constructor.name} is not in ERROR_CLASSES`,
      );
      assert.equal(typeof err.code, 'string');
      assert.match(err.code, /^[A-Z][A-Z0-9_]+$/, 'code is a stable identifier');
      assert.notEqual(err.code, UnknownExchangeError.code);
      assert.equal(typeof err.retryable, 'boolean');
      assert.equal(err.raw, raw, 'raw kept verbatim');
      assert.equal(err.severity, 'E');
      assert.equal(err.category, category);
      assert.equal(err.exchangeMessage, message);
      assert.equal(err.extra?.trim(), extra);
      assert.equal(err.traceId, 'trace-unit');
      assert.equal(err.endpoint, 'Test');
      assert.ok(err.message.includes(raw), 'the Error message names the exchange string');
      // Stable: the same string always gives the same class and code.
      const again = errorFromString(raw, { traceId: undefined, endpoint: 'Other' });
      assert.equal(again.code, err.code);
      assert.equal(again.constructor, err.constructor);
      // parseErrorString agrees with the error's own parts.
      const parts = parseErrorString(raw);
      assert.equal(parts.raw, raw);
      assert.equal(parts.category, category);
    });
  }

  it('gives each spec string its own code', () => {
    const byCode = new Map<string, string[]>();
    for (const [raw] of SPEC_ERRORS) {
      const code = errorFromString(raw, CTX).code;
      byCode.set(code, [...(byCode.get(code) ?? []), raw]);
    }
    const shared = [...byCode.entries()].filter(([, raws]) => raws.length > 1);
    assert.deepEqual(
      shared,
      [],
      `codes shared by several spec strings: ${shared.map(([c, r]) => `${c} <- ${r.join(' | ')}`).join('; ')}`,
    );
  });

  it('picks the most specific entry for strings that extend another', () => {
    assert.ok(errorFromString('EGeneral:Invalid arguments', CTX) instanceof InvalidArgumentsError);
    assert.ok(
      errorFromString('EGeneral:Invalid arguments:Index unavailable', CTX) instanceof
        IndexUnavailableError,
    );
    assert.ok(
      errorFromString('EGeneral:Invalid arguments:Invalid strategy ID', CTX) instanceof
        InvalidStrategyIdError,
    );
    assert.ok(errorFromString('EAPI:Rate limit exceeded', CTX) instanceof RateLimitExceededError);
    assert.ok(
      errorFromString('EOrder:Rate limit exceeded', CTX) instanceof OrderRateLimitExceededError,
    );
    assert.notEqual(
      errorFromString('EAPI:Rate limit exceeded', CTX).code,
      errorFromString('EOrder:Rate limit exceeded', CTX).code,
    );
  });

  it('marks transient conditions retryable and caller mistakes not', () => {
    const retryable = (raw: string) => errorFromString(raw, CTX).retryable;
    assert.equal(retryable('EService:Unavailable'), true);
    assert.equal(retryable('EService:Throttled: 1700000000'), true);
    assert.equal(retryable('EService:Deadline elapsed'), true);
    assert.equal(retryable('EAPI:Invalid signature'), false);
    assert.equal(retryable('EAPI:Invalid key'), false);
    assert.equal(retryable('EGeneral:Permission denied'), false);
    assert.equal(retryable('EOrder:Insufficient funds'), false);
    assert.equal(retryable('EOrder:Tick size check failed'), false);
  });

  it('EService:Throttled carries the retry time in ms', () => {
    const err = errorFromString('EService:Throttled: 1700000000', CTX);
    assert.ok(err instanceof ThrottledError);
    assert.equal(err.retryAtMs, 1700000000000);
    assert.equal(err.code, ThrottledError.code);
  });

  it('EService:Throttled without a usable time still maps, with no retry time', () => {
    const template = errorFromString('EService:Throttled: <UNIX timestamp>', CTX);
    assert.ok(template instanceof ThrottledError);
    assert.equal(template.retryAtMs, undefined);
    const bare = errorFromString('EService:Throttled', CTX);
    assert.ok(bare instanceof ThrottledError);
    assert.equal(bare.retryAtMs, undefined);
  });

  it('keeps unknown strings verbatim in UnknownExchangeError', () => {
    const err = errorFromString('EQuery:Unknown asset pair', CTX);
    assert.ok(err instanceof UnknownExchangeError);
    assert.equal(err.raw, 'EQuery:Unknown asset pair');
    assert.equal(err.category, 'Query');
    assert.equal(err.exchangeMessage, 'Unknown asset pair');
    assert.equal(err.code, UnknownExchangeError.code);
    assert.ok(err.message.includes('EQuery:Unknown asset pair'));

    const odd = errorFromString('Internal error: upstream 502', CTX);
    assert.ok(odd instanceof UnknownExchangeError);
    assert.equal(odd.raw, 'Internal error: upstream 502');
    assert.ok(odd.message.includes('Internal error: upstream 502'));
  });

  it('does not match a prefix inside a longer word', () => {
    // `EOrder:Insufficient fundsX` is not `EOrder:Insufficient funds`.
    assert.ok(errorFromString('EOrder:Insufficient fundsX', CTX) instanceof UnknownExchangeError);
  });

  it('parses warnings with severity W', () => {
    const w = parseErrorString('WGeneral:Deprecated:use asset_class');
    assert.deepEqual(w, {
      severity: 'W',
      category: 'General',
      message: 'Deprecated',
      extra: 'use asset_class',
      raw: 'WGeneral:Deprecated:use asset_class',
    });
  });
});

describe('errors over the wire', () => {
  let server: FixtureServer;
  let client: SpotClient;

  before(async () => {
    server = await FixtureServer.start();
    client = fixtureClient(server);
  });
  after(async () => {
    await client.close();
    await server.close();
  });
  beforeEach(() => server.clearRequests());

  describe('spot envelope', () => {
    it('an E string throws the typed error with the trace id', async () => {
      server.reply({ body: errorEnvelope('EOrder:Insufficient funds'), traceId: 'trace-e1' });
      await assert.rejects(
        client.addOrder({ pair: 'XXBTZUSD', type: 'buy', ordertype: 'market', volume: '100' }),
        (err: unknown) => {
          assert.ok(err instanceof InsufficientFundsError, String(err));
          assert.equal(err.traceId, 'trace-e1');
          assert.equal(err.endpoint, 'AddOrder');
          assert.equal(err.raw, 'EOrder:Insufficient funds');
          assert.ok(err.message.includes('trace-e1'));
          return true;
        },
      );
    });

    it('an E string beside a result still throws', async () => {
      server.reply({
        body: envelope({ count: 0 }, ['WGeneral:Deprecated', 'EService:Unavailable']),
        traceId: 'trace-e2',
      });
      await assert.rejects(client.cancelAll(), (err: unknown) => {
        assert.ok(err instanceof ExchangeError);
        assert.equal(err.code, errorFromString('EService:Unavailable', CTX).code);
        assert.equal(err.traceId, 'trace-e2');
        return true;
      });
    });

    it('EService:Throttled over the wire keeps retryAtMs', async () => {
      server.reply({ body: errorEnvelope('EService:Throttled: 1700000000'), traceId: 'trace-th' });
      await assert.rejects(client.balance(), (err: unknown) => {
        assert.ok(err instanceof ThrottledError);
        assert.equal(err.retryAtMs, 1700000000000);
        assert.equal(err.traceId, 'trace-th');
        return true;
      });
    });

    it('an unknown E string throws UnknownExchangeError keeping the text', async () => {
      server.reply({ body: errorEnvelope('EQuery:Unknown asset pair'), traceId: 'trace-unk' });
      await assert.rejects(client.ticker({ pair: 'NOPEUSD' }), (err: unknown) => {
        assert.ok(err instanceof UnknownExchangeError);
        assert.equal(err.raw, 'EQuery:Unknown asset pair');
        assert.equal(err.traceId, 'trace-unk');
        return true;
      });
    });

    it('only W strings: the result comes back with the warnings', async () => {
      server.reply({
        body: envelope({ unixtime: 1700000000, rfc1123: 'Tue, 14 Nov 23 22:13:20 +0000' }, [
          'WGeneral:Deprecated:use the newer endpoint',
          'WService:Degraded',
        ]),
        traceId: 'trace-w',
      });
      const res = await client.time();
      assert.equal(res.traceId, 'trace-w');
      assert.equal(res.result.unixtime, 1700000000);
      assert.equal(res.warnings.length, 2);
      const [w0, w1] = res.warnings;
      assert.equal(w0?.severity, 'W');
      assert.equal(w0?.category, 'General');
      assert.equal(w0?.message, 'Deprecated');
      assert.equal(w0?.extra, 'use the newer endpoint');
      assert.equal(w0?.raw, 'WGeneral:Deprecated:use the newer endpoint');
      assert.equal(w1?.raw, 'WService:Degraded');
    });
  });

  describe('pay transfer error objects', () => {
    const req = {
      amount: '25.00',
      asset: 'USD',
      to: 'alice',
      external_id: 'q83vEjKBSm6Wc5fSkpYjXw',
    } as const;

    it('an E object throws an exchange error keeping its fields and the trace id', async () => {
      server.reply({
        body: JSON.stringify({
          error: [
            {
              severity: 'E',
              errorClass: 'General',
              type: 'Invalid arguments',
              errorMessage: 'external_id q83vEjKBSm6Wc5fSkpYjXw is already used',
            },
          ],
          result: {},
        }),
        traceId: 'trace-pay',
      });
      await assert.rejects(client.payTransferCreate(req), (err: unknown) => {
        assert.ok(err instanceof ExchangeError, String(err));
        assert.equal(err.traceId, 'trace-pay');
        assert.equal(err.severity, 'E');
        assert.equal(err.category, 'General');
        assert.ok(err.raw.includes('already used'), err.raw);
        assert.ok(err.message.includes('already used'));
        assert.equal(typeof err.retryable, 'boolean');
        assert.ok(err.code.length > 0);
        return true;
      });
    });

    it('a W object comes back as a warning beside the result', async () => {
      server.reply({
        body: JSON.stringify({
          error: [{ severity: 'W', errorClass: 'Funding', type: 'Slow', errorMessage: 'queued' }],
          result: { transfer_id: 'PT4ABC-DEFGH-IJKLMN' },
        }),
        traceId: 'trace-payw',
      });
      const res = await client.payTransferCreate(req);
      assert.equal(res.result.transfer_id, 'PT4ABC-DEFGH-IJKLMN');
      assert.equal(res.warnings.length, 1);
      assert.equal(res.warnings[0]?.severity, 'W');
      assert.equal(res.warnings[0]?.category, 'Funding');
    });
  });

  describe('OTC history', () => {
    const req = { start_date: 1700000000, end_date: 1699900000 };

    it('an `errors` body throws with the trace id and keeps the message', async () => {
      server.reply({
        body: JSON.stringify({
          errors: [
            {
              field: 'end_date',
              value: 1699900000,
              type: 'value_error',
              msg: 'end_date must be after start_date',
              severity: 'E',
              errorClass: 'General',
            },
          ],
        }),
        traceId: 'trace-otc',
      });
      await assert.rejects(client.getOtcSpotTradeHistory(req), (err: unknown) => {
        assert.ok(err instanceof ExchangeError, String(err));
        assert.equal(err.traceId, 'trace-otc');
        assert.equal(err.severity, 'E');
        assert.ok(err.raw.includes('end_date must be after start_date'), err.raw);
        assert.ok(err.message.includes('end_date'));
        return true;
      });
    });

    it('the spot string form throws InvalidArgumentsError', async () => {
      server.reply({ body: errorEnvelope('EGeneral:Invalid arguments'), traceId: 'trace-otc2' });
      await assert.rejects(client.getOtcSpotTradeHistory(req), (err: unknown) => {
        assert.ok(err instanceof InvalidArgumentsError);
        assert.equal(err.traceId, 'trace-otc2');
        return true;
      });
    });
  });

  describe('futures bodies', () => {
    const rfq = 'a8f0e6b2-7c3d-4a51-9e0f-2b6d1c4e8f90';
    for (const status of [200, 400]) {
      it(`RFQ accept, errors as {code, message} objects (HTTP ${status})`, async () => {
        server.reply({
          status,
          body: JSON.stringify({
            result: 'error',
            serverTime: '2023-11-14T22:13:20.123Z',
            errors: [{ code: 404, message: 'RFQ not found or no longer open' }],
          }),
          traceId: `trace-rfq-${status}`,
        });
        await assert.rejects(
          client.futuresAcceptRfqOffer({ rfqUid: rfq, askAccepted: '37010' }),
          (err: unknown) => {
            assert.ok(err instanceof FuturesError, String(err));
            assert.equal(err.status, status);
            assert.equal(err.traceId, `trace-rfq-${status}`);
            assert.ok(
              err.details.some(
                (d) => d.includes('RFQ not found or no longer open') && d.includes('404'),
              ),
              JSON.stringify(err.details),
            );
            assert.equal(err.code, 'FUTURES_ERROR');
            return true;
          },
        );
      });

      it(`RFQ accept, error id with errors as strings (HTTP ${status})`, async () => {
        server.reply({
          status,
          body: JSON.stringify({
            error: 'accountInactive',
            result: 'error',
            serverTime: '2023-11-14T22:13:20.123Z',
            errors: ['accountInactive'],
          }),
          traceId: `trace-rfq2-${status}`,
        });
        await assert.rejects(
          client.futuresAcceptRfqOffer({ rfqUid: rfq, bidAccepted: '36990' }),
          (err: unknown) => {
            assert.ok(err instanceof FuturesError, String(err));
            assert.equal(err.errorId, 'accountInactive');
            assert.equal(err.status, status);
            assert.ok(err.details.includes('accountInactive'), JSON.stringify(err.details));
            assert.equal(err.traceId, `trace-rfq2-${status}`);
            return true;
          },
        );
      });
    }

    for (const status of [401, 200]) {
      it(`key check failure {error, message, suberror} (HTTP ${status})`, async () => {
        server.reply({
          status,
          body: JSON.stringify({
            error: 'authenticationError',
            message: 'The API key is not valid',
            suberror: 'apiKeyNotFound',
          }),
          traceId: `trace-key-${status}`,
        });
        await assert.rejects(client.futuresCheckApiKey(), (err: unknown) => {
          assert.ok(err instanceof FuturesError, String(err));
          assert.equal(err.errorId, 'authenticationError');
          assert.equal(err.status, status);
          assert.ok(err.details.includes('The API key is not valid'), JSON.stringify(err.details));
          assert.ok(err.details.includes('apiKeyNotFound'), JSON.stringify(err.details));
          assert.equal(err.traceId, `trace-key-${status}`);
          assert.ok(err.message.includes('authenticationError'));
          return true;
        });
      });
    }

    it('fills failure body throws FuturesError', async () => {
      server.reply({
        status: 503,
        body: JSON.stringify({
          result: 'error',
          serverTime: '2023-11-14T22:13:20.123Z',
          errors: ['serviceUnavailable'],
        }),
        traceId: 'trace-fills',
      });
      await assert.rejects(client.futuresFills(), (err: unknown) => {
        assert.ok(err instanceof FuturesError, String(err));
        assert.equal(err.status, 503);
        assert.equal(err.retryable, true);
        assert.deepEqual(err.details, ['serviceUnavailable']);
        return true;
      });
    });
  });

  describe('custody problem documents', () => {
    const vault = 'VRKZ3QGFWNBQ7AM';
    const cases = [
      {
        status: 400,
        suffix: 'BadRequest',
        title: 'Bad Request',
        detail: 'asset_class is required when asset is given',
        retryable: false,
      },
      {
        status: 403,
        suffix: 'PermissionDenied',
        title: 'Permission Denied',
        detail: 'no read access to the vault',
        retryable: false,
      },
      {
        status: 404,
        suffix: 'AssetNotFound',
        title: 'Asset Not Found',
        detail: 'no asset matches XBTX/currency',
        retryable: false,
      },
      {
        status: 500,
        suffix: 'gateway/ReadUpstream',
        title: 'Internal Server Error',
        detail: 'upstream response could not be read',
        retryable: true,
      },
      {
        status: 503,
        suffix: 'gateway/Connect',
        title: 'Service Unavailable',
        detail: 'custody service unreachable',
        retryable: true,
      },
    ] as const;
    const codes = new Map<number, string>();

    for (const c of cases) {
      it(`${c.status} ${c.suffix} → CustodyProblemError (retryable ${c.retryable})`, async () => {
        const type = `tag:custody.example.com,2025:${c.suffix}`;
        server.reply({
          status: c.status,
          headers: { 'content-type': 'application/problem+json' },
          body: JSON.stringify({
            type,
            status: c.status,
            title: c.title,
            data: { message: c.detail },
            detail: c.detail,
            instance: `https://api.example.com/trace/trace-cust-${c.status}`,
          }),
          traceId: `trace-cust-${c.status}`,
        });
        await assert.rejects(
          client.custodyWithdrawalMethods({
            vault_id: vault,
            asset: 'XBTX',
            asset_class: 'currency',
          }),
          (err: unknown) => {
            assert.ok(err instanceof CustodyProblemError, String(err));
            assert.equal(err.status, c.status);
            assert.equal(err.type, type);
            assert.equal(err.title, c.title);
            assert.equal(err.detail, c.detail);
            assert.equal(err.instance, `https://api.example.com/trace/trace-cust-${c.status}`);
            assert.equal(err.traceId, `trace-cust-${c.status}`);
            assert.equal(typeof err.code, 'string');
            assert.ok(err.code.length > 0);
            assert.match(err.code, /^[A-Z][A-Z0-9_]+$/);
            assert.equal(err.retryable, c.retryable);
            codes.set(c.status, err.code);
            return true;
          },
        );
      });
    }

    it('gives each problem type its own code', () => {
      assert.equal(codes.size, cases.length, 'all custody cases ran');
      assert.equal(new Set(codes.values()).size, cases.length, JSON.stringify([...codes]));
    });

    it('a problem document whose data is not an object still maps, keeping the detail', async () => {
      server.reply({
        status: 403,
        body: JSON.stringify({
          type: 'tag:custody.example.com,2025:PermissionDenied',
          status: 403,
          title: 'Permission Denied',
          data: 'opaque',
          detail: 'no read access to the vault',
          instance: 'https://api.example.com/trace/x',
        }),
        traceId: 'trace-cust-data',
      });
      await assert.rejects(client.custodyWithdrawalMethods({ vault_id: vault }), (err: unknown) => {
        assert.ok(err instanceof CustodyProblemError);
        assert.equal(err.detail, 'no read access to the vault');
        assert.equal(err.retryable, false);
        return true;
      });
    });
  });
});
