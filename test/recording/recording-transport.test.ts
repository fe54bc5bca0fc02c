import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Clock } from '../../src/core/index.js';
import {
  ConnectionLostError,
  SpotClient,
  type HttpRequest,
  type HttpResponse,
  type Transport,
} from '../../src/exchange/index.js';
import { RecordingTransport, type RecordedRow } from '../../src/recording/index.js';

const PAIRS =
  '{"error":[],"result":{"XXBTZUSD":{"altname":"XBTUSD","wsname":"XBT/USD","aclass_base":"currency","base":"XXBT","aclass_quote":"currency","quote":"ZUSD","lot":"unit","cost_decimals":5,"pair_decimals":1,"lot_decimals":8,"lot_multiplier":1,"leverage_buy":[],"leverage_sell":[],"fees":[],"fees_maker":[],"fee_volume_currency":"ZUSD","margin_call":80,"margin_stop":40,"ordermin":"0.0001","costmin":"0.5","tick_size":"0.1"}}}';

/** Answers every request from a table by endpoint, 15 ms of clock later; remembers requests. */
class FakeExchange implements Transport {
  readonly seen: HttpRequest[] = [];
  constructor(
    readonly clock: StepClock,
    readonly answers: Record<string, string | Error>,
  ) {}
  async send(req: HttpRequest): Promise<HttpResponse> {
    this.seen.push(req);
    await Promise.resolve();
    this.clock.set(this.clock.now() + 15);
    const a = this.answers[req.endpoint] ?? '{"error":[],"result":{}}';
    if (a instanceof Error) throw a;
    return {
      status: 200,
      body: a,
      bytes: undefined,
      traceId: 't',
      contentType: 'application/json',
    };
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A clock the fake exchange moves on as it answers. */
class StepClock implements Clock {
  constructor(private ms: number) {}
  now(): number {
    return this.ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
  sleep(ms: number): Promise<void> {
    this.ms += ms;
    return Promise.resolve();
  }
}

void describe('recording transport', () => {
  void it('records market data with times and the pair altname, and nothing else', async () => {
    const clock = new StepClock(1_000_000);
    const depth = '{"error":[],"result":{"XXBTZUSD":{"asks":[["50000.1","1.000",1]],"bids":[]}}}';
    const level3 =
      '{"error":[],"result":{"pair":"XBTUSD","bids":[],"asks":[{"price":"50000.1","qty":"1.00000000","order_id":"O1","timestamp":1764219600123456789}]}}';
    const inner = new FakeExchange(clock, {
      AssetPairs: PAIRS,
      Depth: depth,
      Level3: level3,
      OpenOrders: '{"error":[],"result":{"open":{}}}',
      AddOrder: '{"error":[],"result":{"descr":{"order":"buy"},"txid":["OX"]}}',
      BalanceEx: '{"error":[],"result":{"ZUSD":{"balance":"1000.0000","hold_trade":"0"}}}',
    });
    const rows: RecordedRow[] = [];
    const transport = new RecordingTransport(inner, clock);
    const client = new SpotClient({
      baseUrl: 'http://venue.test',
      credentials: { apiKey: 'KEY-abc', apiSecret: Buffer.from('s3cret').toString('base64') },
      transport,
      clock,
      restLimiter: false,
    });
    await client.assetPairs();
    transport.attach((r) => rows.push(r));
    await client.depth({ pair: 'XXBTZUSD', count: 10 });
    await client.level3({ pair: 'XBT/USD', depth: 10 });
    await client.openOrders();
    await client.balanceEx();
    await client.addOrder({
      pair: 'XXBTZUSD',
      type: 'buy',
      ordertype: 'limit',
      volume: '0.01',
      price: '100',
    });

    assert.deepEqual(
      rows.map((r) => [r.endpoint, r.pair, r.receivedMs - r.askedMs]),
      [
        ['AssetPairs', undefined, 15],
        ['Depth', 'XBTUSD', 15],
        ['Level3', 'XBTUSD', 15],
        ['OpenOrders', undefined, 15],
      ],
    );
    assert.equal(rows[1]?.body, depth);
    assert.equal(rows[2]?.body, level3);
    const text = JSON.stringify(rows);
    for (const secret of ['KEY-abc', 'nonce', 'API-Sign', 'OX', 'ZUSD":{"balance']) {
      assert.ok(!text.includes(secret), `${secret} is not recorded`);
    }
  });

  void it('records a transport failure as an error row and still throws it', async () => {
    const clock = new StepClock(2_000_000);
    const inner = new FakeExchange(clock, {
      Depth: new ConnectionLostError('Depth', new Error('socket hang up')),
    });
    const rows: RecordedRow[] = [];
    const transport = new RecordingTransport(inner, clock, (r) => rows.push(r));
    const client = new SpotClient({
      baseUrl: 'http://venue.test',
      transport,
      clock,
      retry: { retries: 0 },
    });
    await assert.rejects(client.depth({ pair: 'XBTUSD' }), ConnectionLostError);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.pair, 'XBTUSD');
    assert.equal(rows[0]?.body, undefined);
    assert.match(rows[0]?.error ?? '', /^TRANSPORT_CONNECTION_LOST: .*socket hang up/);

    transport.detach();
    await assert.rejects(client.depth({ pair: 'XBTUSD' }));
    assert.equal(rows.length, 1, 'nothing recorded once detached');
  });
});
