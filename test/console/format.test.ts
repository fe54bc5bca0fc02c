/**
 * The console's figures as the operator reads them: amounts rounded exactly from their decimal
 * strings (never through a float), signs written, durations and countdowns, and the colours
 * that flag a figure as late or near its limit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ageTone,
  clockUtc,
  deadManTone,
  formatAmount,
  formatBps,
  formatCountdown,
  formatDuration,
  formatLevel,
  negate,
  ratecountTone,
  roundDecimal,
  share,
  shareTone,
  signedShare,
  signOf,
  sumDecimals,
  spreadBps,
  windowRelation,
  windowSpan,
  withSign,
} from '../../console/format.js';

test('decimal strings round half away from zero, exactly, past what a float holds', () => {
  assert.equal(roundDecimal('1.005', 2), '1.01', 'a float makes this 1.00');
  assert.equal(roundDecimal('-1.005', 2), '-1.01');
  assert.equal(roundDecimal('9.999', 2), '10.00');
  assert.equal(roundDecimal('-0.004', 2), '0.00', 'no negative zero');
  assert.equal(roundDecimal('123456789012345678.987654321', 3), '123456789012345678.988');
  assert.equal(roundDecimal('2.5', 0), '3');
  assert.equal(roundDecimal('1.50000', 4, 1), '1.5', 'trailing zeros dropped down to minPlaces');
  assert.equal(roundDecimal('1e3', 2), '1e3', 'not a plain decimal: shown as it came');
});

test('amounts keep their significant digits whatever their size, and at least minPlaces', () => {
  assert.equal(formatAmount('12.3456789', 2, 6), '12.3457');
  assert.equal(
    formatAmount('0.000123456789', 2, 6),
    '0.000123457',
    'an XBT-quoted PnL stays visible',
  );
  assert.equal(formatAmount('12345.678', 2, 6), '12345.68', 'never fewer than minPlaces');
  assert.equal(
    formatAmount('1234567.891', 2, 6),
    '1234567.89',
    'whole units are never rounded away',
  );
  assert.equal(formatAmount('-0.5', 2, 6), '-0.50');
  assert.equal(formatAmount('3', 2, 6), '3.00');
  assert.equal(formatAmount('0', 2, 6), '0.00');
  assert.equal(formatAmount('0.0625'), '0.0625');
  assert.equal(formatAmount('5'), '5');
});

test('PnL figures carry their sign; fees are shown as the cost they are', () => {
  assert.equal(withSign('12.35'), '+12.35');
  assert.equal(withSign('-3.05'), '\u22123.05');
  assert.equal(withSign('0.00'), '0.00');
  assert.equal(negate('1.4222'), '-1.4222');
  assert.equal(negate('-0.5'), '0.5');
  assert.equal(negate('0.00'), '0.00');
  assert.deepEqual(['1', '-0.01', '0.000', '-0', 'x'].map(signOf), [1, -1, 0, 0, 0]);
});

test('durations, countdowns and times of day', () => {
  assert.equal(formatDuration(420), '0.4 s');
  assert.equal(formatDuration(12_900), '12 s');
  assert.equal(formatDuration(185_000), '3 min 05 s');
  assert.equal(formatDuration(7_500_000), '2 h 05 min');
  assert.equal(formatDuration(3 * 86_400_000 + 4 * 3_600_000), '3 d 4 h');
  assert.equal(formatDuration(-5), '0.0 s');
  assert.equal(formatCountdown(42_001), '0:43', 'rounded up: 0:00 only once the moment comes');
  assert.equal(formatCountdown(725_000), '12:05');
  assert.equal(formatCountdown(3_723_000), '1:02:03');
  assert.equal(formatCountdown(-1000), '0:00');
  assert.equal(clockUtc(Date.UTC(2026, 10, 27, 4, 5, 6)), '04:05:06');
});

test('a maintenance window relative to now, with its dates only when not today', () => {
  const now = Date.UTC(2026, 10, 27, 14, 0, 0);
  const start = Date.UTC(2026, 10, 27, 19, 0, 0);
  const end = Date.UTC(2026, 10, 27, 20, 0, 0);
  assert.equal(windowRelation(start, end, now), 'in 5 h 00 min');
  assert.equal(windowRelation(start, end, start + 60_000), 'now, 59 min 00 s left');
  assert.equal(windowRelation(start, undefined, start), 'now');
  assert.equal(windowRelation(start, end, end), 'over');
  assert.equal(windowSpan(start, end, now), '19:00–20:00 UTC');
  assert.equal(windowSpan(start + 86_400_000, end + 86_400_000, now), '2026-11-28 19:00–20:00 UTC');
  assert.equal(windowSpan(start, end + 86_400_000, now), '19:00 – 2026-11-28 20:00 UTC');
  assert.equal(windowSpan(start, undefined, now), 'from 19:00 UTC');
});

test('figures turn amber, then red, where an operator should look', () => {
  const fixed = [400, 5000, 29_999, 30_000].map((ms) => ageTone(ms));
  assert.deepEqual(fixed, ['ok', 'warn', 'warn', 'bad'], 'a runner that names no stale age');
  assert.deepEqual([45_000, 20_000, 5000].map(deadManTone), ['ok', 'warn', 'bad']);
  assert.deepEqual([0.5, 0.7, 0.9].map(shareTone), ['ok', 'warn', 'bad']);
  assert.equal(share(101, 125), 0.808);
  assert.equal(share(150, 125), 1, 'an overfull counter fills the bar, no more');
  assert.equal(share(5, 0), 0);
  assert.equal(formatLevel(37.5, 125), '37.5 / 125');
  assert.equal(formatLevel(4.3333, 15), '4.3 / 15');
  assert.equal(formatLevel(101, 125), '101 / 125');
});

test("a data age is judged against its own source's stale age, not one for all", () => {
  // The 120 s balance poll, stale after 3 intervals (360 s): on time at 100 s.
  const balance = [100_000, 240_001, 360_001].map((ms) => ageTone(ms, 360_000));
  assert.deepEqual(balance, ['ok', 'warn', 'bad']);
  // Depth every 1.5 s: 4 s old is late.
  assert.deepEqual(
    [1000, 3500, 4600].map((ms) => ageTone(ms, 4500)),
    ['ok', 'warn', 'bad'],
  );
});

test('the ratecount is fine up to where the executor plans to run, amber beyond, red at the max', () => {
  // Tier max 60, headroom 2: the executor plans up to 58 (97 %).
  const tones = [30, 55, 58, 59, 60].map((level) => ratecountTone(level, 60, 58));
  assert.deepEqual(tones, ['ok', 'ok', 'ok', 'warn', 'bad']);
  assert.equal(ratecountTone(114, 125, 123), 'ok', '91 % as planned');
  assert.equal(ratecountTone(114, 125, undefined), 'bad', 'without a plan: the share alone');
});

test('a position against its limit keeps its sign; PnL sums exactly', () => {
  assert.equal(signedShare(-1.2, 5), -0.24);
  assert.equal(signedShare(7, 5), 1);
  assert.equal(signedShare(-7, 5), -1);
  assert.equal(sumDecimals(['12.3456789', '-3.05']), '9.2956789');
  assert.equal(sumDecimals(['0.1', '0.2']), '0.3', 'a float makes this 0.30000000000000004');
  assert.equal(sumDecimals(['-0.5', '0.25']), '-0.25');
  assert.equal(sumDecimals(['1', '2']), '3');
  assert.equal(sumDecimals([]), '0');
});

test('basis points: signed markouts and the book spread', () => {
  assert.equal(formatBps(1.84), '+1.8 bps');
  assert.equal(formatBps(-0.62), '\u22120.6 bps');
  assert.equal(formatBps(0.01), '0.0 bps');
  assert.equal(spreadBps('99', '101')?.toFixed(6), '200.000000');
  assert.equal(spreadBps('0', '101'), undefined);
});
