import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OHLC_MAX_ROWS } from '../../../src/sim/market-data/ohlc-series.js';
import { MarketRecorder } from '../../../src/sim/market-data/recorder.js';
import { stubMarket, T0 } from './stub-market.js';

const MIN = 60_000;
/** Start of the minute holding T0, in seconds. */
const M0 = Math.floor(T0 / MIN) * 60;

function row(f: {
  timeSec: number;
  open: unknown;
  high: unknown;
  low: unknown;
  close: unknown;
  vwap: unknown;
  volume: unknown;
  count: number;
}) {
  const s = (d: unknown) => String(d);
  return [f.timeSec, s(f.open), s(f.high), s(f.low), s(f.close), s(f.vwap), s(f.volume), f.count];
}

describe('MarketRecorder OHLC', () => {
  it('aggregates prints into frames: open, high, low, close, vwap, volume, count', () => {
    const m = stubMarket();
    m.print('100', '1', 'buy', M0 * 1000 + 1_000);
    m.print('110', '1', 'sell', M0 * 1000 + 2_000);
    m.print('90', '2', 'buy', M0 * 1000 + 3_000);
    m.print('95', '1', 'buy', M0 * 1000 + 4_000);
    const rows = m.recorder.ohlc(m.xbt, 1, M0 * 1000 + 5_000);
    assert.equal(rows.length, 1);
    // vwap = (100 + 110 + 180 + 95) / 5 = 97
    assert.deepEqual(row(rows[0]!), [M0, '100', '110', '90', '95', '97', '5', 4]);
  });

  it('always ends with the current frame, flat at the last close when nothing traded in it', () => {
    const m = stubMarket();
    m.print('100', '1', 'buy', M0 * 1000);
    m.print('105', '1', 'buy', M0 * 1000 + 10_000);
    const later = M0 * 1000 + 3 * MIN + 5_000;
    const rows = m.recorder.ohlc(m.xbt, 1, later);
    assert.equal(rows.length, 4);
    assert.deepEqual(row(rows[0]!), [M0, '100', '105', '100', '105', '102.5', '2', 2]);
    // The quiet minutes in between and the current one are flat at 105 with nothing traded.
    for (const [i, r] of rows.slice(1).entries()) {
      assert.deepEqual(row(r), [M0 + 60 * (i + 1), '105', '105', '105', '105', '105', '0', 0]);
    }
  });

  it('has one flat row at the pair reference price before any trade', () => {
    const m = stubMarket();
    const rows = m.recorder.ohlc(m.xbt, 60, T0);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.close.toFixed(), '60000');
    assert.equal(rows[0]!.count, 0);
    assert.equal(rows[0]!.timeSec % 3600, 0);
  });

  it('returns at most 720 rows, the newest, the current frame last', () => {
    const m = stubMarket();
    for (let i = 0; i < 1000; i++) m.print(String(1000 + i), '1', 'buy', M0 * 1000 + i * MIN);
    const now = M0 * 1000 + 999 * MIN + 30_000;
    const rows = m.recorder.ohlc(m.xbt, 1, now);
    assert.equal(rows.length, OHLC_MAX_ROWS);
    assert.equal(rows.at(-1)!.timeSec, M0 + 999 * 60);
    assert.equal(rows.at(-1)!.close.toFixed(), '1999');
    assert.equal(rows[0]!.timeSec, M0 + 280 * 60);
    assert.equal(rows[0]!.open.toFixed(), '1280');
  });

  it('fills the window with flats at the close of frames it no longer keeps', () => {
    const m = stubMarket();
    m.print('42', '1', 'buy', M0 * 1000);
    // Two days later on the 1-minute series: 720 flat rows at 42.
    const rows = m.recorder.ohlc(m.xbt, 1, M0 * 1000 + 2 * 1440 * MIN);
    assert.equal(rows.length, OHLC_MAX_ROWS);
    assert.ok(rows.every((r) => r.close.toFixed() === '42' && r.count === 0));
  });

  it('aligns every interval on the epoch and aggregates the same prints', () => {
    const m = stubMarket();
    const dayStart = Math.floor(T0 / 86_400_000) * 86_400;
    m.print('100', '1', 'buy', dayStart * 1000 + 3_600_000);
    m.print('120', '3', 'buy', dayStart * 1000 + 7_200_000);
    const rows = m.recorder.ohlc(m.xbt, 1440, dayStart * 1000 + 7_300_000);
    assert.equal(rows.length, 1);
    assert.deepEqual(row(rows[0]!), [dayStart, '100', '120', '100', '120', '115', '4', 2]);
    const hourly = m.recorder.ohlc(m.xbt, 60, dayStart * 1000 + 7_300_000);
    assert.deepEqual(
      hourly.map((r) => [r.timeSec - dayStart, r.count]),
      [
        [3600, 1],
        [7200, 1],
      ],
    );
  });

  it('refuses an interval the spec does not list', () => {
    const m = stubMarket();
    assert.throws(() => m.recorder.ohlc(m.xbt, 2, T0), RangeError);
  });
});

describe('MarketRecorder tape', () => {
  it('gives every print a unique increasing cursor, even within one millisecond', () => {
    const m = stubMarket();
    m.print('1', '1', 'buy', T0);
    m.print('2', '1', 'buy', T0);
    m.print('3', '1', 'buy', T0 + 1);
    const cursors = m.recorder.prints(m.xbt).map((p) => p.cursorNs);
    assert.deepEqual(cursors, [
      BigInt(T0) * 1_000_000n,
      BigInt(T0) * 1_000_000n + 1n,
      BigInt(T0 + 1) * 1_000_000n,
    ]);
  });

  it('takes cursors from a clock with fractional milliseconds, exact to the nanosecond', () => {
    const m = stubMarket();
    m.print('1', '1', 'buy', T0 + 0.375);
    m.print('2', '1', 'buy', T0 + 0.375);
    m.print('3', '1', 'buy', T0 + 0.5);
    const cursors = m.recorder.prints(m.xbt).map((p) => p.cursorNs);
    assert.deepEqual(cursors, [
      BigInt(T0) * 1_000_000n + 375_000n,
      BigInt(T0) * 1_000_000n + 375_001n,
      BigInt(T0) * 1_000_000n + 500_000n,
    ]);
  });

  it('keeps a bounded tape of the newest prints', () => {
    const m = stubMarket();
    const small = new MarketRecorder(m.markets, m.book, m.clock, { tapeSize: 50 });
    for (let i = 0; i < 500; i++) {
      small.onTrade({ ...m.print(String(i + 1), '1'), tradeId: i + 1 });
    }
    const kept = small.trades(m.xbt);
    assert.equal(kept.length, 50);
    assert.equal(kept[0]!.tradeId, 451);
    assert.equal(kept.at(-1)!.tradeId, 500);
  });
});

describe('MarketRecorder spread samples', () => {
  it('samples the top of book only when bid or ask changes', async () => {
    const m = stubMarket();
    m.book.rest(m.xbt, 'buy', '99', '1', 1n);
    m.recorder.onBook(m.xbt); // one-sided: nothing to sample
    m.book.rest(m.xbt, 'sell', '101', '1', 2n);
    m.recorder.onBook(m.xbt);
    m.book.rest(m.xbt, 'sell', '102', '1', 3n); // behind the touch
    m.recorder.onBook(m.xbt);
    await m.clock.advance(2_000);
    m.book.rest(m.xbt, 'buy', '100', '1', 4n);
    m.recorder.onBook(m.xbt);
    const samples = m.recorder
      .spreads(m.xbt)
      .map((s) => [s.timeSec, s.bid.toFixed(), s.ask.toFixed()]);
    assert.deepEqual(samples, [
      [T0 / 1000, '99', '101'],
      [T0 / 1000 + 2, '100', '101'],
    ]);
  });

  it('keeps about the last 200 samples', () => {
    const m = stubMarket();
    m.book.rest(m.xbt, 'sell', '100000', '1', 1n);
    for (let i = 1; i <= 500; i++) {
      m.book.rest(m.xbt, 'buy', String(i), '1', BigInt(i));
      m.recorder.onBook(m.xbt);
    }
    const samples = m.recorder.spreads(m.xbt);
    assert.equal(samples.length, 200);
    assert.equal(samples.at(-1)!.bid.toFixed(), '500');
    assert.equal(samples[0]!.bid.toFixed(), '301');
  });
});

describe('MarketRecorder window stats', () => {
  it('sums prints from a start time and remembers the price before it', () => {
    const m = stubMarket();
    m.print('100', '1', 'buy', M0 * 1000);
    m.print('110', '1', 'buy', M0 * 1000 + 2 * MIN);
    m.print('90', '3', 'buy', M0 * 1000 + 3 * MIN);
    const s = m.recorder.stats(m.xbt, M0 * 1000 + 2 * MIN + 30_000);
    assert.equal(s.count, 2);
    assert.equal(s.volume.toFixed(), '4');
    assert.equal(s.notional.toFixed(), '380');
    assert.equal(s.open?.toFixed(), '110');
    assert.equal(s.high?.toFixed(), '110');
    assert.equal(s.low?.toFixed(), '90');
    assert.equal(s.closeBefore?.toFixed(), '100');
  });
});
