/**
 * Malformed answers become ResponseParseError (with the trace id and the path of the first bad
 * value), never a crash or a silent `undefined`; well-formed ones keep big integers and decimal
 * text exact.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { ResponseParseError, type SpotClient } from '../../src/index.js';
import { FixtureServer, envelope, fixtureClient } from '../support/fixture-server.js';

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

/** The call must reject with ResponseParseError carrying `traceId` and a path that `path` accepts. */
async function expectParseError(
  call: () => Promise<unknown>,
  traceId: string,
  path: string | RegExp,
): Promise<ResponseParseError> {
  let caught: unknown;
  try {
    const value = await call();
    assert.fail(`expected ResponseParseError, got a result: ${JSON.stringify(value, bigintSafe)}`);
  } catch (err) {
    caught = err;
  }
  assert.ok(
    caught instanceof ResponseParseError,
    `expected ResponseParseError, got ${String(caught)}`,
  );
  assert.equal(caught.traceId, traceId);
  assert.equal(typeof caught.path, 'string');
  assert.ok(caught.path.length > 0, 'path is not empty');
  if (typeof path === 'string') assert.equal(caught.path, path);
  else assert.match(caught.path, path);
  assert.equal(caught.code, 'RESPONSE_MALFORMED');
  assert.equal(caught.retryable, false);
  assert.ok(caught.message.includes(traceId), 'the message names the trace id');
  return caught;
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? `${value}n` : value;
}

const PAIR = {
  altname: 'XBTUSD',
  wsname: 'XBT/USD',
  aclass_base: 'currency',
  base: 'XXBT',
  aclass_quote: 'currency',
  quote: 'ZUSD',
  lot: 'unit',
  cost_decimals: 5,
  pair_decimals: 1,
  lot_decimals: 8,
  lot_multiplier: 1,
  leverage_buy: [2, 3],
  leverage_sell: [2, 3],
  fees: [[0, 0.26]],
  fees_maker: [[0, 0.16]],
  fee_volume_currency: 'ZUSD',
  margin_call: 80,
  margin_stop: 40,
  ordermin: '0.0001',
  costmin: '0.5',
  tick_size: '0.1',
  status: 'online',
  long_position_limit: 270,
  short_position_limit: 180,
};

describe('malformed bodies become ResponseParseError', () => {
  it('non-JSON text (public)', async () => {
    server.reply({ body: '<html><body>502 Bad Gateway</body></html>', traceId: 't-html' });
    await expectParseError(() => client.time(), 't-html', '$');
  });

  it('non-JSON text (private)', async () => {
    server.reply({ body: '{"error":[],"result":{"ZUSD":"1.0"', traceId: 't-trunc' });
    await expectParseError(() => client.balance(), 't-trunc', '$');
  });

  it('empty body', async () => {
    server.reply({ body: '', traceId: 't-empty' });
    await expectParseError(() => client.systemStatus(), 't-empty', '$');
  });

  it('non-JSON text on the lossless (Level3) path', async () => {
    server.reply({ body: 'Service Unavailable', traceId: 't-l3text' });
    await expectParseError(() => client.level3({ pair: 'XBTUSD' }), 't-l3text', '$');
  });

  it('a JSON array instead of the envelope object', async () => {
    server.reply({ body: '[{"error":[],"result":{}}]', traceId: 't-array' });
    await expectParseError(() => client.time(), 't-array', '$');
  });

  it('JSON null and JSON scalars instead of the envelope object', async () => {
    for (const body of ['null', '"ok"', '42', 'true']) {
      server.reply({ body, traceId: `t-scalar-${body}` });
      await expectParseError(() => client.assets(), `t-scalar-${body}`, '$');
    }
  });

  it('`error` that is not an array', async () => {
    server.reply({
      body: '{"error":"EGeneral:Invalid arguments","result":{}}',
      traceId: 't-errstr',
    });
    await expectParseError(() => client.balance(), 't-errstr', 'error');
  });

  it('`error` entries that are not strings', async () => {
    server.reply({ body: '{"error":[42],"result":{}}', traceId: 't-errnum' });
    await expectParseError(() => client.balance(), 't-errnum', /^error/);
  });

  it('missing `result`', async () => {
    server.reply({ body: '{"error":[]}', traceId: 't-nores' });
    await expectParseError(() => client.tradeBalance(), 't-nores', 'result');
  });

  it('a Depth row with 2 elements', async () => {
    server.reply({
      body: envelope({
        XXBTZUSD: {
          asks: [['37000.10000', '0.10000000']],
          bids: [['37000.00000', '2.00000000', 1699999999]],
        },
      }),
      traceId: 't-depth2',
    });
    const err = await expectParseError(
      () => client.depth({ pair: 'XXBTZUSD' }),
      't-depth2',
      /^result.*XXBTZUSD.*asks.*0/,
    );
    assert.equal(err.endpoint, 'Depth');
  });

  it('a Depth row with a number as price', async () => {
    server.reply({
      body: envelope({ XXBTZUSD: { asks: [[37000.1, '0.10000000', 1700000000]], bids: [] } }),
      traceId: 't-depthnum',
    });
    await expectParseError(
      () => client.depth({ pair: 'XXBTZUSD' }),
      't-depthnum',
      /^result.*XXBTZUSD.*asks.*0.*0$/,
    );
  });

  it('a number where a decimal string is expected (Balance)', async () => {
    server.reply({ body: envelope({ ZUSD: '171288.6158', XXBT: 0.5 }), traceId: 't-balnum' });
    await expectParseError(() => client.balance(), 't-balnum', /^result.*XXBT/);
  });

  it('a number where a decimal string is expected (AssetPairs tick_size)', async () => {
    server.reply({
      body: envelope({ XXBTZUSD: { ...PAIR, tick_size: 0.1 } }),
      traceId: 't-ticknum',
    });
    await expectParseError(() => client.assetPairs(), 't-ticknum', /^result.*XXBTZUSD.*tick_size/);
  });

  it('a missing required field in AssetPairs', async () => {
    const { ordermin: _dropped, ...withoutOrdermin } = PAIR;
    server.reply({ body: envelope({ XXBTZUSD: withoutOrdermin }), traceId: 't-nomin' });
    await expectParseError(
      () => client.assetPairs({ pair: 'XXBTZUSD' }),
      't-nomin',
      /^result.*XXBTZUSD.*ordermin/,
    );
  });

  it('an OHLC `last` that is not an integer', async () => {
    server.reply({
      body: envelope({ XXBTZUSD: [], last: '1700000000' }),
      traceId: 't-ohlclast',
    });
    await expectParseError(() => client.ohlc({ pair: 'XXBTZUSD' }), 't-ohlclast', /^result/);
  });

  it('an OHLC row of the wrong length', async () => {
    server.reply({
      body: envelope({
        XXBTZUSD: [[1700000000, '1', '2', '0.5', '1.5', '1.2', '10']],
        last: 1700000000,
      }),
      traceId: 't-ohlcrow',
    });
    await expectParseError(
      () => client.ohlc({ pair: 'XXBTZUSD' }),
      't-ohlcrow',
      /^result.*XXBTZUSD/,
    );
  });

  it('a Level3 entry without a timestamp', async () => {
    server.reply({
      body: '{"error":[],"result":{"pair":"XBTUSD","bids":[{"price":"1.0","qty":"2.0","order_id":"O1"}],"asks":[]}}',
      traceId: 't-l3ts',
    });
    await expectParseError(() => client.level3({ pair: 'XBTUSD' }), 't-l3ts', /^result.*bids.*0/);
  });

  it('a wrong result type (object where the spec says boolean)', async () => {
    server.reply({ body: envelope({ ok: true }), traceId: 't-bool' });
    await expectParseError(
      () => client.withdrawCancel({ asset: 'XBT', refid: 'R1' }),
      't-bool',
      /^result/,
    );
  });

  it('custody: 200 with non-JSON text, and with an object instead of the array', async () => {
    server.reply({ body: 'not json', traceId: 't-cust1' });
    await expectParseError(
      () => client.custodyWithdrawalMethods({ vault_id: 'VRKZ3QGFWNBQ7AM' }),
      't-cust1',
      '$',
    );
    server.reply({ body: '{"methods":[]}', traceId: 't-cust2' });
    await expectParseError(
      () => client.custodyWithdrawalMethods({ vault_id: 'VRKZ3QGFWNBQ7AM' }),
      't-cust2',
      /^result/,
    );
  });

  it('futures: 200 with non-JSON text, and fills with a string size', async () => {
    server.reply({ body: '<html>', traceId: 't-fut1' });
    await expectParseError(() => client.futuresFills(), 't-fut1', '$');
    server.reply({
      body: JSON.stringify({
        result: 'success',
        serverTime: '2023-11-14T22:13:20.123Z',
        fills: [
          {
            fill_id: 'f1',
            symbol: 'PI_XBTUSD',
            side: 'buy',
            order_id: 'o1',
            size: '5490',
            price: 36950.5,
            fillTime: '2023-11-14T21:59:58.000Z',
            fillType: 'maker',
          },
        ],
      }),
      traceId: 't-fut2',
    });
    await expectParseError(() => client.futuresFills(), 't-fut2', /^result.*fills.*0.*size/);
  });

  it('pay: an error entry that is neither string nor object', async () => {
    server.reply({ body: '{"error":[7],"result":{}}', traceId: 't-pay' });
    await expectParseError(
      () =>
        client.payTransferCreate({
          amount: '1',
          asset: 'USD',
          to: 'bob',
          external_id: 'AAAAAAAAAAAAAAAAAAAAAA',
        }),
      't-pay',
      /^error/,
    );
  });

  it('retrieveExport: a JSON content type with a broken body', async () => {
    server.reply({
      headers: { 'content-type': 'application/json' },
      body: '{"error":[',
      traceId: 't-zipjson',
    });
    await expectParseError(() => client.retrieveExport({ id: 'VSKC' }), 't-zipjson', '$');
  });
});

describe('exact values', () => {
  it('Level3 nanosecond timestamps come back as exact bigints', async () => {
    const stamps = [
      '1700000000123456789',
      '1700000000999999999',
      '9007199254740993', // 2^53 + 1: a double would round it to 2^53
      '18446744073709551615', // u64 max
      '1700000000', // a safe integer is a bigint too
    ];
    const entries = stamps.map(
      (ts, i) =>
        `{"price":"37000.${i}0000","qty":"0.00000001","order_id":"O${i}-AAAAA-BBBBBB","timestamp":${ts}}`,
    );
    server.reply({
      body: `{"error":[],"result":{"pair":"XBTUSD","bids":[${entries.join(',')}],"asks":[]}}`,
      traceId: 't-l3big',
    });
    const { result, traceId } = await client.level3({ pair: 'XBTUSD', depth: 0 });
    assert.equal(traceId, 't-l3big');
    assert.deepEqual(
      result.bids.map((b) => b.timestamp),
      stamps.map((s) => BigInt(s)),
    );
    for (const b of result.bids) assert.equal(typeof b.timestamp, 'bigint');
    assert.equal(result.bids[0]?.timestamp, 1700000000123456789n);
    assert.notEqual(result.bids[0]?.timestamp, BigInt(Number('1700000000123456789')));
    // Decimal text survives the lossless parser unchanged.
    assert.equal(result.bids[0]?.qty, '0.00000001');
    assert.equal(result.bids[1]?.price, '37000.10000');
  });

  it('decimal strings come back exactly as sent', async () => {
    const values: Record<string, string> = {
      ZUSD: '0.00000001',
      XXBT: '0.10000000',
      XETH: '1000000000000000000000.000000000000000001',
      'DOT.S': '0.0000000000',
      XXDG: '-0.5000',
      ZEUR: '1e-8',
    };
    server.reply({ body: envelope(values), traceId: 't-dec' });
    const { result } = await client.balance();
    assert.deepEqual(result, values);
    assert.equal(result.ZUSD, '0.00000001');
    assert.notEqual(result.ZUSD, '1e-8');
    for (const v of Object.values(result)) assert.equal(typeof v, 'string');
  });

  it('Depth keeps price and volume text verbatim', async () => {
    server.reply({
      body: envelope({
        XXBTZUSD: {
          asks: [['37000.10000', '0.10000000', 1700000000]],
          bids: [['0.00000100', '123456789.00000000', 1700000001]],
        },
      }),
      traceId: 't-depthdec',
    });
    const { result } = await client.depth({ pair: 'XXBTZUSD' });
    assert.deepEqual(result.XXBTZUSD, {
      asks: [{ price: '37000.10000', volume: '0.10000000', timestamp: 1700000000 }],
      bids: [{ price: '0.00000100', volume: '123456789.00000000', timestamp: 1700000001 }],
    });
  });

  it('OHLC and Trades rows keep their decimal text', async () => {
    server.reply({
      body: envelope({
        XXBTZUSD: [
          [
            1700000000,
            '0.00000010',
            '0.00000020',
            '0.00000005',
            '0.00000015',
            '0.00000012',
            '0.10000000',
            3,
          ],
        ],
        last: 1700000000,
      }),
      traceId: 't-ohlcdec',
    });
    const ohlc = await client.ohlc({ pair: 'XXBTZUSD' });
    assert.deepEqual(ohlc.result.pairs.XXBTZUSD?.[0]?.slice(1, 7), [
      '0.00000010',
      '0.00000020',
      '0.00000005',
      '0.00000015',
      '0.00000012',
      '0.10000000',
    ]);

    server.reply({
      body: envelope({
        XXBTZUSD: [['0.00000010', '100.00000000', 1700000000.1234, 'b', 'l', '', 1]],
        last: '1700000000123400000',
      }),
      traceId: 't-tradesdec',
    });
    const trades = await client.trades({ pair: 'XXBTZUSD' });
    assert.equal(trades.result.pairs.XXBTZUSD?.[0]?.[0], '0.00000010');
    assert.equal(trades.result.pairs.XXBTZUSD?.[0]?.[1], '100.00000000');
    assert.equal(trades.result.last, '1700000000123400000');
  });
});
