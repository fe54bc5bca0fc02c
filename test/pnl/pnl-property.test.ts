import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Decimal, dec } from '../../src/core/index.js';
import { PairPnl } from '../../src/pnl/index.js';

/** A decimal with up to `places` decimals in (0, max]. */
const amount = (max: number, places: number) =>
  fc.integer({ min: 1, max: max * 10 ** places }).map((n) => dec(n).div(10 ** places));

const arbEvent = fc.oneof(
  fc.record({
    kind: fc.constant('mid' as const),
    stepMs: fc.integer({ min: 0, max: 5_000 }),
    mid: amount(70_000, 2),
  }),
  fc.record({
    kind: fc.constant('fill' as const),
    // Up to 3 s late: the tracker reports fills after the mids of their moment.
    lateMs: fc.integer({ min: 0, max: 3_000 }),
    buy: fc.boolean(),
    price: amount(70_000, 2),
    volume: amount(5, 8),
    fee: fc.integer({ min: -5, max: 40 }).map((bp) => dec(bp).div(10_000)),
  }),
);

void describe('PairPnl: properties', () => {
  void it('total = spread + inventory - fees exactly, and each part matches its definition', () => {
    fc.assert(
      fc.property(
        amount(10, 4).map((q) => q.minus(5)),
        fc.array(arbEvent, { minLength: 1, maxLength: 60 }),
        (opening, events) => {
          const p = new PairPnl({ openingBase: opening, keepFills: 1_000 });
          let now = 0;
          let cash = new Decimal(0);
          let firstMark: Decimal | undefined;
          for (const e of events) {
            if (e.kind === 'mid') {
              now += e.stepMs;
              p.mid(now, e.mid);
              firstMark ??= e.mid;
            } else {
              const volume = e.volume;
              p.fill({
                atMs: Math.max(0, now - e.lateMs),
                side: e.buy ? 'buy' : 'sell',
                price: e.price,
                volume,
                fee: e.price.times(volume).times(e.fee),
                id: String(cash),
              });
              cash = e.buy ? cash.minus(e.price.times(volume)) : cash.plus(e.price.times(volume));
              firstMark ??= e.price;
            }
            const s = p.summary();
            const { total, spread, inventory, fees } = s.pnl;
            assert.ok(total.eq(spread.plus(inventory).minus(fees)), 'the identity');
            const mark = s.mark ?? new Decimal(0);
            assert.ok(
              total.eq(
                cash
                  .plus(s.position.times(mark))
                  .minus(fees)
                  .minus(opening.times(firstMark ?? 0)),
              ),
              'total is the mark-to-market of the fills and the opening position',
            );
            const records = p.fills();
            const held = records.reduce(
              (sum, r) =>
                sum.plus(mark.minus(r.mid).times(r.side === 'buy' ? r.volume : r.volume.neg())),
              opening.times(mark.minus(firstMark ?? mark)),
            );
            assert.ok(
              inventory.eq(held),
              `inventory ${inventory.toFixed()} = held ${held.toFixed()}`,
            );
            const edges = records.reduce((sum, r) => sum.plus(r.spread), new Decimal(0));
            assert.ok(spread.eq(edges), 'spread is the sum of the fills');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
