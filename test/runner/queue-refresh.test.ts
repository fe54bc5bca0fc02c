/**
 * Queue-aware refresh (src/runner/queue-refresh.ts), through diffQuotes: a live bid at 100.00
 * that the strategy wants at 100.03 (3 bps towards the mid), with a 1 bps tolerance, a queue
 * worth 5 bps at its front and 0.5 bps a ratecount point. The move is worth it only when the
 * drift beats the tolerance plus the place lost plus the points the edit costs by age.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, type BookView, type QueuePosition } from '../../src/core/index.js';
import type { OwnOrder } from '../../src/core/market.js';
import { penalty } from '../../src/exchange/index.js';
import { diffQuotes } from '../../src/runner/quote-diff.js';
import type { RoundedQuote } from '../../src/runner/quote-rounding.js';

const NOW = 1_700_000_000_000;
const defaults = { priceBps: 1, volumeFraction: 0.1, maxAgeMs: 0 };
const QUEUE = { valueBps: 5, ratecountPointBps: 0.5 };

const ours = (price: string, ageMs: number): OwnOrder => ({
  txid: 'OBID',
  userref: 1,
  slot: { side: 'buy', level: 0 },
  generation: 1,
  side: 'buy',
  orderType: 'limit',
  price: dec(price),
  volume: dec('0.1'),
  volumeExecuted: dec('0'),
  openedAtMs: NOW - ageMs,
  postOnly: true,
});

/** A desired bid valuing its queue (QUEUE), or, with `null`, a queue-blind one. */
const wanted = (price: string, queue: RoundedQuote['queue'] | null = QUEUE): RoundedQuote => ({
  side: 'buy',
  level: 0,
  price: dec(price),
  volume: dec('0.1'),
  postOnly: true,
  slot: 'bid:0',
  ...(queue === null ? {} : { queue }),
});

const place = (ahead: string, behind: string): QueuePosition => ({
  txid: 'OBID',
  side: 'buy',
  price: dec('100.00'),
  ahead: dec(ahead),
  behind: dec(behind),
  source: 'depth',
  rule: 'linear',
  asOfMs: NOW,
});

/** The market's bids: someone already rests at 100.03 unless `empty`. */
const book = (empty = false): BookView => ({
  bids: [
    ...(empty ? [] : [{ price: dec('100.03'), volume: dec('1') }]),
    { price: dec('100.00'), volume: dec('2') },
  ],
  asks: [{ price: dec('100.10'), volume: dec('1') }],
});

const plan = (o: {
  live: OwnOrder;
  want: RoundedQuote;
  place?: QueuePosition;
  empty?: boolean;
}): string[] =>
  diffQuotes({
    desired: [o.want],
    live: [o.live],
    nowMs: NOW,
    defaults,
    queue: {
      queue: o.place === undefined ? [] : [o.place],
      book: book(o.empty),
      editPoints: (ageMs) => penalty('EditOrder', ageMs),
    },
  }).map((d) => `${d.action} ${d.reason}`);

describe('queue-aware refresh', () => {
  it('keeps an order at the front of its queue: 3 bps < 1 + 5 (place) + 6 × 0.5 (points)', () => {
    assert.deepEqual(
      plan({ live: ours('100.00', 2_000), want: wanted('100.03'), place: place('0', '2') }),
      [],
    );
  });

  it('keeps a young order at the back for its points alone: 3 bps < 1 + 0 + 3', () => {
    assert.deepEqual(
      plan({ live: ours('100.00', 2_000), want: wanted('100.03'), place: place('2', '0') }),
      [],
    );
  });

  it('moves an order at the back once its edit is free (older than 300 s): 3 bps > 1', () => {
    assert.deepEqual(
      plan({ live: ours('100.00', 400_000), want: wanted('100.03'), place: place('2', '0') }),
      ['amend moved'],
    );
  });

  it('weighs a place by the share behind it: half behind, 100 s old: 3 bps < 1 + 2.5', () => {
    // An EditOrder of an order between 90 s and 300 s old costs no points (the spec's table).
    assert.equal(penalty('EditOrder', 100_000), 0);
    assert.deepEqual(
      plan({ live: ours('100.00', 100_000), want: wanted('100.03'), place: place('1', '1') }),
      [],
    );
  });

  it('gives up nothing by moving into a price nobody rests at (the front there too)', () => {
    assert.deepEqual(
      plan({
        live: ours('100.00', 400_000),
        want: wanted('100.03'),
        place: place('0', '2'),
        empty: true,
      }),
      ['amend moved'],
    );
  });

  it('moves an order the market left more aggressive than wanted at the plain tolerance', () => {
    // The strategy wants the bid 3 bps lower: keeping it would buy nearer the mid than wanted.
    assert.deepEqual(
      plan({ live: ours('100.03', 2_000), want: wanted('100.00'), place: place('0', '2') }),
      ['amend moved'],
    );
  });

  it('is queue-blind for a quote that states no queue value', () => {
    assert.deepEqual(
      plan({
        live: ours('100.00', 2_000),
        want: wanted('100.03', null),
        place: place('0', '2'),
      }),
      ['amend moved'],
    );
  });
});
