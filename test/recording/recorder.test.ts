import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ManualClock, parseWithSchema } from '../../src/core/index.js';
import {
  SpotClient,
  type HttpRequest,
  type HttpResponse,
  type Transport,
} from '../../src/exchange/index.js';
import { Recorder, RecordingReader } from '../../src/recording/index.js';
import { MarketConfig, planFromConfig, resolvePairs } from '../../src/market/index.js';
import { collect, freeMb, tempDir } from './helpers.js';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 27, 5, 59, 58);
const RULES = {
  XXBTZUSD: {
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
    leverage_buy: [],
    leverage_sell: [],
    fees: [],
    fees_maker: [],
    fee_volume_currency: 'ZUSD',
    margin_call: 80,
    margin_stop: 40,
    ordermin: '0.0001',
    costmin: '0.5',
    tick_size: '0.1',
  },
};

/** Answers AssetPairs and Depth at once, remembering the AssetPairs queries. */
class Venue implements Transport {
  readonly pairQueries: (string | null)[] = [];
  send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    if (req.endpoint === 'AssetPairs') this.pairQueries.push(url.searchParams.get('pair'));
    const result =
      req.endpoint === 'AssetPairs'
        ? RULES
        : { XXBTZUSD: { asks: [['50000.1', '1.00000000', 1]], bids: [] } };
    return Promise.resolve({
      status: 200,
      body: JSON.stringify({ error: [], result }),
      bytes: undefined,
      traceId: undefined,
      contentType: 'application/json',
    });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

void describe('recorder', () => {
  void it('keeps the answers from before the plan, and asks for the pair rules each new hour', async () => {
    const { dir, remove } = tempDir();
    cleanup.push(remove);
    const clock = new ManualClock(T0);
    const venue = new Venue();
    const recorder = new Recorder({ dir, clock, inner: venue, statfs: freeMb(10_000) });
    const client = new SpotClient({
      baseUrl: 'http://venue.test',
      transport: recorder.transport,
      clock,
    });
    const pairs = resolvePairs((await client.assetPairs()).result, ['XBT/USD']);
    const plan = planFromConfig(parseWithSchema(MarketConfig, {}, 'market'), 'starter', [
      'XXBTZUSD',
    ]);
    await recorder.start({ plan, client, pairs });
    await client.depth({ pair: 'XXBTZUSD' });
    await clock.advance(HOUR / 2);
    await client.depth({ pair: 'XXBTZUSD' });
    // The hour's first row had the rules asked for again, for the recorded pairs only.
    await clock.advance(0);
    assert.deepEqual(venue.pairQueries, [null, 'XBTUSD']);
    await recorder.close();

    const rows = await collect(new RecordingReader(dir).rows());
    // At equal times key-wide rows come first.
    assert.deepEqual(
      rows.map((r) => [
        r.endpoint,
        r.pair ?? '_key',
        new Date(r.receivedMs).toISOString().slice(11, 13),
      ]),
      [
        ['AssetPairs', '_key', '05'],
        ['Depth', 'XBTUSD', '05'],
        ['AssetPairs', '_key', '06'],
        ['Depth', 'XBTUSD', '06'],
      ],
    );
    assert.equal(recorder.stats().files, 4, '_key and XBTUSD, each hour');
    assert.deepEqual(
      rows.map((r) => r.askedMs),
      rows.map((r) => r.receivedMs),
    );
  });
});
