import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { Decimal } from '../../../src/core/index.js';
import type { SimTrade } from '../../../src/sim/engine/types.js';
import {
  EXPORT_PROCESS_MS,
  EXPORT_QUEUE_MS,
  exportRoutes,
} from '../../../src/sim/endpoints/exports.js';
import { direct, rawOf, rejectsWith, resultOf } from './rest-support.js';

interface ExportRecord {
  id: string;
  status: string;
  [field: string]: unknown;
}

function setup() {
  const d = direct();
  const routes = exportRoutes(d.ctx);
  const account = d.account();
  const call = (name: string, params: Record<string, unknown> = {}) =>
    d.call(routes, name, account, params);
  const status = async (report: string) =>
    resultOf(await call('ExportStatus', { report })) as ExportRecord[];
  return { d, account, call, status };
}

function trade(d: ReturnType<typeof direct>, key: string, id: string, timeMs: number): SimTrade {
  const pair = d.ctx.markets.requirePair('XBTUSD');
  return {
    id,
    accountKey: key,
    ordertxid: `O${id.slice(1)}`,
    postxid: 'OPOST1-AAAAA-BBBBBB',
    pair,
    timeMs,
    side: 'buy',
    ordertype: 'limit',
    price: new Decimal('60000.1'),
    vol: new Decimal('0.5'),
    cost: new Decimal('30000.05'),
    fee: new Decimal('78.00013'),
    feeAsset: 'ZUSD',
    maker: false,
    ledgers: ['LAAAAA-BBBBB-CCCCCC', 'LDDDDD-EEEEE-FFFFFF'],
    tradeId: 1,
  };
}

function unzipOne(bytes: Buffer): [string, string] {
  const files = unzipSync(new Uint8Array(bytes));
  const names = Object.keys(files);
  assert.equal(names.length, 1);
  const name = names[0] ?? '';
  return [name, Buffer.from(files[name] ?? new Uint8Array()).toString('utf8')];
}

describe('AddExport', () => {
  it('validates report, description, format and fields', async () => {
    const { call } = setup();
    await rejectsWith(call('AddExport', { description: 'x' }), 'EGeneral:Invalid arguments:report');
    await rejectsWith(
      call('AddExport', { report: 'orders', description: 'x' }),
      'EGeneral:Invalid arguments:report',
    );
    await rejectsWith(
      call('AddExport', { report: 'trades' }),
      'EGeneral:Invalid arguments:description',
    );
    await rejectsWith(
      call('AddExport', { report: 'trades', description: 'x', format: 'XLS' }),
      'EGeneral:Invalid arguments:format',
    );
    // `asset` is a ledgers field, not a trades one
    await rejectsWith(
      call('AddExport', { report: 'trades', description: 'x', fields: 'price,asset' }),
      'EGeneral:Invalid arguments:fields',
    );
    await rejectsWith(
      call('AddExport', { report: 'trades', description: 'x', starttm: '200', endtm: '100' }),
      'EGeneral:Invalid arguments:endtm',
    );
    const res = resultOf(await call('AddExport', { report: 'ledgers', description: 'x' })) as {
      id: string;
    };
    assert.match(res.id, /^[A-Z]{4}$/);
  });
});

describe('export lifecycle', () => {
  it('goes Queued, Processing, Processed with every status field', async () => {
    const { d, call, status } = setup();
    const { id } = resultOf(
      await call('AddExport', { report: 'trades', description: 'my trades' }),
    ) as { id: string };
    let [rec] = await status('trades');
    assert.equal(rec?.status, 'Queued');
    assert.deepEqual(Object.keys(rec ?? {}).sort(), [
      'aclass',
      'asset',
      'completedtm',
      'createdtm',
      'dataendtm',
      'datastarttm',
      'descr',
      'expiretm',
      'fields',
      'flags',
      'format',
      'id',
      'report',
      'starttm',
      'status',
      'subtype',
    ]);
    assert.equal(rec?.id, id);
    assert.equal(rec?.descr, 'my trades');
    assert.equal(rec?.format, 'CSV');
    assert.equal(rec?.fields, 'all');
    assert.equal(rec?.completedtm, '0');
    // the clock is at 2023-11-14T22:13:20Z: data starts on the 1st of November
    assert.equal(rec?.datastarttm, String(Date.UTC(2023, 10, 1) / 1000));
    assert.equal(rec?.dataendtm, '1700000000');
    assert.deepEqual(await status('ledgers'), []);
    await rejectsWith(call('RetrieveExport', { id }), 'EGeneral:Invalid arguments:id');

    await d.advance(EXPORT_QUEUE_MS);
    [rec] = await status('trades');
    assert.equal(rec?.status, 'Processing');
    assert.equal(rec?.starttm, '1700000001');

    await d.advance(EXPORT_PROCESS_MS);
    [rec] = await status('trades');
    assert.equal(rec?.status, 'Processed');
    assert.equal(rec?.completedtm, '1700000003');
  });

  it('retrieves a real zip with the requested trade fields in range', async () => {
    const { d, account, call } = setup();
    const now = d.clock.now();
    d.trades.set(account.key, [
      trade(d, account.key, 'TAAAAA-AAAAA-AAAAAA', now - 10_000),
      trade(d, account.key, 'TBBBBB-BBBBB-BBBBBB', now - 5_000),
      trade(d, account.key, 'TOLDER-OLDER-OLDERR', now - 40 * 86_400_000),
    ]);
    const { id } = resultOf(
      await call('AddExport', {
        report: 'trades',
        description: 'x',
        fields: 'price,time,ledgers',
        starttm: String(Math.floor((now - 86_400_000) / 1000)),
      }),
    ) as { id: string };
    await d.advance(EXPORT_QUEUE_MS + EXPORT_PROCESS_MS);
    const reply = rawOf(await call('RetrieveExport', { id }));
    assert.equal(reply.status, 200);
    assert.equal(reply.contentType, 'application/octet-stream');
    assert.ok(Buffer.isBuffer(reply.body));
    const [name, text] = unzipOne(reply.body);
    assert.equal(name, 'trades.csv');
    const lines = text.trimEnd().split('\n');
    // identity columns, then the requested fields in the spec's order
    assert.equal(lines[0], '"txid","pair","type","time","price","ledgers"');
    assert.equal(lines.length, 3);
    assert.equal(
      lines[1],
      '"TAAAAA-AAAAA-AAAAAA","XXBTZUSD","buy","2023-11-14 22:13:10.0000","60000.1","LAAAAA-BBBBB-CCCCCC,LDDDDD-EEEEE-FFFFFF"',
    );
  });

  it('exports the ledger as TSV', async () => {
    const { d, account, call } = setup();
    const { id } = resultOf(
      await call('AddExport', {
        report: 'ledgers',
        description: 'x',
        format: 'TSV',
        fields: 'asset,amount,balance',
      }),
    ) as { id: string };
    await d.advance(EXPORT_QUEUE_MS + EXPORT_PROCESS_MS);
    const [name, text] = unzipOne(rawOf(await call('RetrieveExport', { id })).body as Buffer);
    assert.equal(name, 'ledgers.tsv');
    const lines = text.trimEnd().split('\n');
    assert.equal(lines[0], 'txid\tasset\tamount\tbalance');
    // the three opening balances the account was funded with
    assert.equal(lines.length, 1 + account.wallet.ledger.length);
    assert.ok(lines.includes(`${account.wallet.ledger[0]?.id ?? ''}\tZUSD\t1000000\t1000000`));
  });
});

describe('RemoveExport', () => {
  it('cancels only queued or processing reports and deletes only processed ones', async () => {
    const { d, call, status } = setup();
    const add = async () =>
      (resultOf(await call('AddExport', { report: 'trades', description: 'x' })) as { id: string })
        .id;
    const first = await add();
    await rejectsWith(
      call('RemoveExport', { id: first, type: 'delete' }),
      'EGeneral:Invalid arguments:type',
    );
    assert.deepEqual(resultOf(await call('RemoveExport', { id: first, type: 'cancel' })), {
      cancel: true,
    });
    assert.deepEqual(await status('trades'), []);

    const second = await add();
    await d.advance(EXPORT_QUEUE_MS);
    assert.deepEqual(resultOf(await call('RemoveExport', { id: second, type: 'cancel' })), {
      cancel: true,
    });

    const third = await add();
    await d.advance(EXPORT_QUEUE_MS + EXPORT_PROCESS_MS);
    await rejectsWith(
      call('RemoveExport', { id: third, type: 'cancel' }),
      'EGeneral:Invalid arguments:type',
    );
    assert.deepEqual(resultOf(await call('RemoveExport', { id: third, type: 'delete' })), {
      delete: true,
    });
    assert.deepEqual(await status('trades'), []);
    await rejectsWith(
      call('RemoveExport', { id: third, type: 'delete' }),
      'EGeneral:Invalid arguments:id',
    );
    await rejectsWith(
      call('RemoveExport', { id: third, type: 'purge' }),
      'EGeneral:Invalid arguments:type',
    );
  });

  it("does not show or remove another key's reports", async () => {
    const { d, call } = setup();
    const other = d.account();
    const routes = exportRoutes(d.ctx);
    const { id } = resultOf(
      await d.call(routes, 'AddExport', other, { report: 'trades', description: 'x' }),
    ) as { id: string };
    await rejectsWith(
      call('RemoveExport', { id, type: 'cancel' }),
      'EGeneral:Invalid arguments:id',
    );
  });
});
