import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RecordedRow } from '../../../src/recording/format.js';
import { tradesGapRow } from '../../../src/recording/index.js';
import { RecordedEvents, type RecordedMarket } from '../../../src/lab/replay/index.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from '../../../src/sim/defaults.js';
import { Markets } from '../../../src/sim/markets.js';
import { fromArray } from './synth-recording.js';

const T0 = Date.UTC(2026, 10, 1);
const s = (ms: number): number => (T0 + ms) / 1000;

function row(endpoint: RecordedRow['endpoint'], at: number, result: unknown, pair?: string) {
  return {
    askedMs: T0 + at - 10,
    receivedMs: T0 + at + 10,
    endpoint,
    pair,
    body: JSON.stringify({ error: [], result }),
  };
}

/** Applies every event in turn, saying what landed when. */
async function replay(rows: RecordedRow[]): Promise<{ seen: string[]; events: RecordedEvents }> {
  const seen: string[] = [];
  const at = (what: string) => seen.push(`${what}@${now - T0}`);
  let now = T0;
  const market = {
    applyDepth: (_p: unknown, bids: { price: { toFixed(): string } }[]) =>
      at(`depth ${bids[0]?.price.toFixed()}`),
    applyTrade: (_p: unknown, t: { price: { toFixed(): string }; side: string }) =>
      at(`trade ${t.side} ${t.price.toFixed()}`),
    applyLevel3: (_p: unknown, bids: { id: string }[]) =>
      at(`level3 ${bids.map((b) => b.id).join(',')}`),
    setMode: (mode: string) => at(`mode ${mode}`),
    setOwnOrders: (o: { id: string }[]) => at(`own ${o.map((x) => x.id).join(',')}`),
  } as unknown as RecordedMarket;
  const events = new RecordedEvents({
    rows: fromArray(rows),
    markets: new Markets(DEFAULT_ASSETS, DEFAULT_PAIRS),
    market,
    startMs: T0,
    endMs: T0 + 60_000,
    lookaheadMs: 60_000,
  });
  for (;;) {
    const event = await events.peek(now);
    if (event === undefined) break;
    events.shift();
    now = event.atMs;
    event.apply();
  }
  return { seen, events };
}

describe('RecordedEvents', () => {
  it('applies each trade at its own time, once, and books at the middle of their request', async () => {
    const { seen, events } = await replay([
      row('Depth', 1_000, { XXBTZUSD: { bids: [['60000.0', '1', 0]], asks: [] } }, 'XBTUSD'),
      row(
        'Trades',
        5_000,
        {
          XXBTZUSD: [
            ['60000.0', '0.1', s(-3_000), 's', 'l', '', 7],
            ['60000.0', '0.1', s(2_000), 's', 'l', '', 8],
            ['60001.0', '0.1', s(3_000), 'b', 'l', '', 9],
          ],
          last: '0',
        },
        'XBTUSD',
      ),
      row('SystemStatus', 6_000, { status: 'post_only', timestamp: '' }),
      row(
        'Trades',
        9_000,
        {
          XXBTZUSD: [
            ['60001.0', '0.1', s(3_000), 'b', 'l', '', 9],
            ['59999.0', '0.2', s(8_000), 's', 'l', '', 10],
          ],
          last: '0',
        },
        'XBTUSD',
      ),
      row(
        'Level3',
        9_500,
        {
          pair: 'XBTUSD',
          bids: [{ price: '1.0', qty: '1', order_id: 'OA', timestamp: 1 }],
          asks: [],
        },
        'XBTUSD',
      ),
      row('OpenOrders', 9_800, {
        open: {
          OX: {
            descr: { pair: 'XBTUSD', type: 'buy', ordertype: 'limit', price: '1.0' },
            vol: '1',
            vol_exec: '0',
          },
        },
      }),
    ]);
    assert.deepEqual(seen, [
      'depth 60000@1000',
      'trade sell 60000@2000',
      'trade buy 60001@3000',
      'mode post_only@6000',
      'trade sell 59999@8000',
      'level3 OA@9500',
      'own OX@9800',
    ]);
    assert.equal(events.counts.duplicateTrades, 1);
    assert.equal(events.counts.tradesBeforeStart, 1);
  });

  it('applies each trade of cursor-following answers once: catch-ups, a restart, a gap', async () => {
    // Trade `id` prints at 60000 + id, so the price names the trade.
    const trades = (at: number, from: number, to: number) =>
      row(
        'Trades',
        at,
        {
          XXBTZUSD: Array.from({ length: to - from + 1 }, (_, i) => [
            `${60_000 + from + i}.0`,
            '0.1',
            s(at - 500),
            'b',
            'l',
            '',
            from + i,
          ]),
          last: `${from}000000000`,
        },
        'XBTUSD',
      );
    const { seen, events } = await replay([
      trades(1_000, 1, 3), // the first poll: the newest trades
      trades(5_000, 4, 13), // capped at count 10 ...
      trades(5_100, 14, 20), // ... and caught up from its `last`
      trades(8_000, 11, 20), // a restarted recorder's first poll reaches back over them
      tradesGapRow('XBTUSD', T0 + 12_000, {
        afterId: 20,
        afterMs: T0 + 4_600,
        resumeId: 51,
        resumeMs: T0 + 11_500,
        missed: 30,
        callsShort: 3,
      }),
      trades(12_000, 51, 60), // the jump to the newest past the gap
      trades(15_000, 61, 62),
    ]);
    const applied = seen.map((e) => Number(/^trade buy (\d+)@/.exec(e)?.[1]) - 60_000);
    const expected = [
      ...Array.from({ length: 20 }, (_, i) => 1 + i),
      ...Array.from({ length: 12 }, (_, i) => 51 + i),
    ];
    assert.deepEqual(applied, expected);
    assert.equal(events.counts.duplicateTrades, 10);
    assert.equal(events.counts.unusable, 0, 'the gap row is no unusable answer');
  });

  it("takes the bot's own orders from OwnOrders rows once there are any, not from OpenOrders", async () => {
    const open = (id: string, price: string) => ({
      open: {
        [id]: {
          descr: { pair: 'XBTUSD', type: 'buy', ordertype: 'limit', price },
          vol: '1',
          vol_exec: '0',
        },
      },
    });
    const { seen } = await replay([
      row('OpenOrders', 1_000, open('OLD', '1.0')),
      row('OwnOrders', 2_000, open('O1', '1.0'), 'XBTUSD'),
      // 30 s stale: the exchange's view would bring back an order the bot has since replaced.
      row('OpenOrders', 3_000, open('OLD', '1.0')),
      row('OwnOrders', 4_000, open('O2', '1.1'), 'XBTUSD'),
    ]);
    assert.deepEqual(seen, ['own OLD@1000', 'own O1@2000', 'own O2@4000']);
  });

  it('counts an error answer as unusable and goes on', async () => {
    const { seen, events } = await replay([
      { askedMs: T0, receivedMs: T0 + 5, endpoint: 'Depth', pair: 'XBTUSD', error: 'ECONNRESET' },
      row('SystemStatus', 1_000, { status: 'online', timestamp: '' }),
    ]);
    assert.deepEqual(seen, ['mode online@1000']);
    assert.equal(events.counts.unusable, 1);
  });
});
