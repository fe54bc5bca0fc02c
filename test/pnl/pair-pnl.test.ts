import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError, dec, type Side } from '../../src/core/index.js';
import { PairPnl, summaryJson, type FillRecord } from '../../src/pnl/index.js';

const fill = (atMs: number, side: Side, price: string, volume: string, fee = '0', id = 'F') => ({
  atMs,
  side,
  price: dec(price),
  volume: dec(volume),
  fee: dec(fee),
  id,
});

/** The split as text, for comparing against hand-computed figures. */
const split = (p: PairPnl) => {
  const { total, spread, inventory, fees } = p.summary().pnl;
  return {
    total: total.toFixed(),
    spread: spread.toFixed(),
    inventory: inventory.toFixed(),
    fees: fees.toFixed(),
  };
};

void describe('PairPnl: PnL split and markouts', () => {
  void it('a round trip on a flat mid: buy low, sell high earns spread, no inventory', () => {
    const p = new PairPnl();
    p.mid(0, dec('100'));
    p.fill(fill(0, 'buy', '99', '1', '0.1'));
    p.fill(fill(500, 'sell', '101', '1', '0.1'));
    p.mid(70_000, dec('100'));
    assert.deepEqual(split(p), { total: '1.8', spread: '2', inventory: '0', fees: '0.2' });
    const s = p.summary();
    assert.equal(s.position.toFixed(), '0');
    assert.equal(s.fills, 2);
    assert.equal(s.volumeBase.toFixed(), '2');
    assert.equal(s.volumeQuote.toFixed(), '200');
    // Every horizon: the buy made 1 over 99, the sell 1 over 101; weighted by volume (1 each).
    for (const m of s.markouts) {
      assert.equal(m.value.toFixed(), '2');
      assert.equal(m.fills, 2);
      assert.equal(m.pending, 0);
      assert.equal(m.meanBps?.toFixed(4), dec(1_000_000).div(9999).toFixed(4)); // 100.0100
      assert.equal(m.buyMeanBps?.toFixed(4), '101.0101'); // 1 / 99
      assert.equal(m.sellMeanBps?.toFixed(4), '99.0099'); // 1 / 101
    }
  });

  void it('a buy before the mid drops: inventory and markouts negative, spread positive', () => {
    const p = new PairPnl();
    p.mid(0, dec('100'));
    p.fill(fill(0, 'buy', '99.5', '1'));
    p.mid(1_000, dec('98'));
    p.mid(10_000, dec('97'));
    assert.deepEqual(split(p), { total: '-2.5', spread: '0.5', inventory: '-3', fees: '0' });
    const [h1, h10, h60] = p.fills()[0]?.markouts ?? [];
    assert.equal(h1?.value?.toFixed(), '-1.5');
    assert.equal(h1?.bps?.toFixed(2), '-150.75'); // -1.5 / 99.5
    assert.equal(h10?.value?.toFixed(), '-2.5');
    assert.equal(h60?.value, undefined, 'pending: no mid at or after 60 s yet');
    assert.equal(p.summary().markouts[2]?.pending, 1);
    p.mid(60_000, dec('101'));
    assert.equal(p.fills()[0]?.markouts[2]?.value?.toFixed(), '1.5');
    assert.equal(p.summary().markouts[2]?.pending, 0);
  });

  void it('a sell: spread and markouts signed so that positive is good for us', () => {
    const p = new PairPnl({ horizonsMs: [1_000] });
    p.mid(0, dec('100'));
    p.fill(fill(0, 'sell', '100.2', '2', '0.05'));
    p.mid(1_000, dec('99'));
    assert.deepEqual(split(p), {
      total: '2.35', // +200.4 cash, -2 x 99 held short, -0.05 fee
      spread: '0.4',
      inventory: '2', // short 2 while the mid fell by 1
      fees: '0.05',
    });
    assert.equal(p.summary().markouts[0]?.value.toFixed(), '2.4');
  });

  void it('a markout takes the first mid at or after fill time + horizon', () => {
    const p = new PairPnl({ horizonsMs: [1_000, 2_000] });
    p.mid(0, dec('100'));
    p.fill(fill(0, 'buy', '100', '1'));
    p.mid(500, dec('101'));
    p.mid(1_500, dec('102'));
    p.mid(2_000, dec('103'));
    p.mid(2_500, dec('104'));
    assert.deepEqual(
      p.fills()[0]?.markouts.map((m) => m.mid?.toFixed()),
      ['102', '103'],
      'not the sample before the horizon; a sample exactly at it counts',
    );
  });

  void it('a fill reported late is priced at the mids of its own time', () => {
    const p = new PairPnl({ horizonsMs: [1_000, 60_000] });
    p.mid(0, dec('100'));
    p.mid(1_000, dec('101'));
    p.mid(2_000, dec('102'));
    p.fill(fill(500, 'buy', '99', '1'));
    const [record] = p.fills();
    assert.equal(record?.mid.toFixed(), '100', 'the mid at 500 ms');
    assert.equal(record?.spread.toFixed(), '1');
    assert.equal(record?.markouts[0]?.mid?.toFixed(), '102', 'the first sample at or after 1.5 s');
    assert.equal(record?.markouts[1]?.value, undefined);
    p.mid(60_499, dec('90'));
    assert.equal(p.fills()[0]?.markouts[1]?.value, undefined, 'not yet at 60.5 s');
    p.mid(60_500, dec('95'));
    assert.equal(p.fills()[0]?.markouts[1]?.value?.toFixed(), '-4');
  });

  void it('tells each fill once, when all its markouts are known', () => {
    const settled: FillRecord[] = [];
    const p = new PairPnl({ horizonsMs: [1_000, 10_000], onFillSettled: (r) => settled.push(r) });
    p.mid(0, dec('100'));
    p.fill(fill(0, 'buy', '99', '1', '0', 'A'));
    p.fill(fill(5_000, 'sell', '101', '1', '0', 'B'));
    p.mid(9_000, dec('100'));
    assert.equal(settled.length, 0, 'B waits for 15 s, A for 10 s');
    p.mid(10_000, dec('100'));
    assert.deepEqual(
      settled.map((r) => [r.id, r.markouts.map((m) => m.value?.toFixed())]),
      [['A', ['1', '1']]],
    );
    p.mid(20_000, dec('100'));
    assert.deepEqual(
      settled.map((r) => r.id),
      ['A', 'B'],
    );
  });

  void it('the opening position enters at the first mid: its move is inventory', () => {
    const p = new PairPnl({ openingBase: dec('2') });
    p.mid(0, dec('100'));
    p.mid(1_000, dec('110'));
    assert.deepEqual(split(p), { total: '20', spread: '0', inventory: '20', fees: '0' });
    assert.equal(p.summary().position.toFixed(), '2');
  });

  void it('time at quote, distance from target, fill rate and ratecount use, time-weighted', () => {
    const p = new PairPnl();
    p.ratecount(0, 6, 60);
    p.quotes(0, { bid: dec('99') }, { bid: dec('100'), ask: dec('100') });
    p.quotes(1_000, { bid: dec('99.5'), ask: dec('100.25') }, { bid: dec('100'), ask: dec('100') });
    p.ratecount(2_000, 30, 60);
    for (const at of [1_000, 2_000, 2_500]) p.fill(fill(at, 'buy', '99.5', '0.1'));
    p.quotes(3_000, {}, {});
    p.ratecount(4_000, 60, 60);
    const s = p.summary();
    assert.deepEqual(s.timeAtQuote, {
      bid: 0.75,
      ask: 0.5,
      both: 0.5,
      any: 0.75,
      observedMs: 4_000,
    });
    // bid: 100 bps for 1 s, 50 bps for 2 s; ask: 25 bps for 2 s.
    assert.equal(s.quoteDistanceBps.bid?.toFixed(4), '66.6667');
    assert.equal(s.quoteDistanceBps.ask, 25);
    assert.equal(s.quoteDistanceBps.mean, 50);
    assert.equal(s.fillRatePerHour, 3_600, '3 fills in 3 s with a quote resting');
    assert.equal(s.ratecountUse.mean, 0.3);
    assert.equal(s.ratecountUse.max, 1);
  });

  void it('keeps a bounded chart series over a day of one-second mids', () => {
    const p = new PairPnl({ seriesEveryMs: 10_000, seriesMaxPoints: 100, keepFills: 5 });
    const day = 86_400_000;
    for (let t = 0; t <= day; t += 1_000) {
      p.mid(t, dec(100 + Math.sin(t / 3_600_000)).toDecimalPlaces(2));
      if (t % 60_000 === 0) p.fill(fill(t, t % 120_000 === 0 ? 'buy' : 'sell', '100', '0.01'));
    }
    const points = p.series();
    assert.ok(points.length <= 100 && points.length >= 50, `${points.length} points`);
    assert.equal(points[0]?.atMs, 0);
    assert.ok((points.at(-1)?.atMs ?? 0) > day - 2 * 3_600_000, 'covers the whole day');
    assert.equal(p.fills().length, 5);
    assert.equal(p.summary().fills, 1_441);
  });

  void it('refuses a fill without volume and a mid from the past, naming the field', () => {
    const p = new PairPnl();
    assert.throws(
      () => p.fill(fill(0, 'buy', '100', '0')),
      (err) =>
        err instanceof InvalidInputError && /fill\.volume.*must be positive/.test(err.message),
    );
    p.mid(1_000, dec('100'));
    assert.throws(
      () => p.mid(999, dec('100')),
      (err) => err instanceof InvalidInputError && /mid\.atMs/.test(err.message),
    );
  });

  void it('summaryJson carries money as exact decimal text', () => {
    const p = new PairPnl({ horizonsMs: [1_000] });
    p.mid(0, dec('100.05'));
    p.fill(fill(0, 'buy', '100.01', '0.00012345', '0.0000001'));
    const json = summaryJson(p.summary());
    assert.equal(json.spread, '0.000004938');
    assert.equal(json.fees, '0.0000001');
    assert.equal(json.total, '0.000004838');
    assert.equal(json.inventory, '0');
    assert.deepEqual(json.markouts, [{ horizonMs: 1_000, value: '0', fills: 0, pending: 1 }]);
  });
});

void describe('PairPnl: adverse selection of the newest fills', () => {
  void it('is how far the mid moved against each fill within the horizon, volume-weighted', () => {
    const p = new PairPnl();
    p.mid(0, dec('100'));
    // A buy, then the mid falls 20 bps: 20 bps against it. A sell (three times the volume),
    // then the mid falls 10 bps: 10 bps in its favour.
    p.fill(fill(0, 'buy', '99.9', '1'));
    p.mid(10_000, dec('99.8'));
    p.fill(fill(10_000, 'sell', '99.9', '3'));
    p.mid(20_000, dec('99.7'));
    const a = p.adverseSelection(10_000, 50);
    // (1 × 20 + 3 × −10.02004...) / 4: the sell's mid was 99.8, 10 s later 99.7.
    const sellMove = dec('99.7').minus('99.8').div('99.8');
    const expected = dec('-0.002').neg().plus(sellMove.times(3)).div(4).times(10_000);
    assert.equal(a.bps.toFixed(8), expected.toFixed(8));
    assert.equal(a.fills, 2);
    assert.equal(a.horizonMs, 10_000);
  });

  void it('counts only the newest `window` fills whose markout is known', () => {
    const p = new PairPnl();
    p.mid(0, dec('100'));
    p.fill(fill(0, 'buy', '99.9', '1'));
    p.mid(10_000, dec('99.5'));
    p.fill(fill(10_000, 'buy', '99.4', '1'));
    p.mid(20_000, dec('99.5'));
    // The second buy's mid did not move; the first's fell 50 bps, outside a window of one.
    assert.equal(p.adverseSelection(10_000, 1).bps.toFixed(), '0');
    assert.equal(p.adverseSelection(10_000, 2).bps.toFixed(), '25');
    p.fill(fill(20_000, 'sell', '99.6', '1'));
    assert.equal(p.adverseSelection(10_000, 5).fills, 2, 'a pending markout is not counted');
  });

  void it('refuses a horizon it does not measure', () => {
    assert.throws(() => new PairPnl().adverseSelection(5_000, 10), InvalidInputError);
  });
});
