import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Decimal } from '../../../src/core/index.js';
import { BookSide, type BookNode } from '../../../src/sim/engine/book.js';

/** Order ids best first, as the side iterates them. */
function order(side: BookSide<number>): number[] {
  const out: number[] = [];
  for (const level of side.levels()) {
    for (let n = level.head; n !== undefined; n = n.next) out.push(n.payload);
  }
  return out;
}

void describe('BookSide', () => {
  void it('orders bids high to low and asks low to high, time priority within a price', () => {
    const bids = new BookSide<number>(true);
    const asks = new BookSide<number>(false);
    const q = new Decimal(1);
    [
      [10, 1],
      [12, 2],
      [10, 3],
      [11, 4],
    ].forEach(([ticks, id], i) => {
      bids.add(ticks as number, new Decimal(ticks as number), q, BigInt(i), id as number);
      asks.add(ticks as number, new Decimal(ticks as number), q, BigInt(i), id as number);
    });
    assert.deepEqual(order(bids), [2, 4, 1, 3]);
    assert.deepEqual(order(asks), [1, 3, 4, 2]);
    assert.equal(bids.best()?.ticks, 12);
    assert.equal(asks.best()?.ticks, 10);
  });

  void it('matches a sorted model under random adds, removes and requeues', () => {
    type Op = { kind: 'add'; ticks: number } | { kind: 'remove' | 'requeue'; pick: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), ticks: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ kind: fc.constantFrom('remove' as const, 'requeue' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.boolean(), fc.array(op, { maxLength: 200 }), (isBid, ops) => {
        const side = new BookSide<number>(isBid);
        const nodes = new Map<number, BookNode<number>>();
        const model = new Map<number, { ticks: number; seq: number }>();
        let seq = 0;
        for (const o of ops) {
          if (o.kind === 'add') {
            const id = seq++;
            nodes.set(id, side.add(o.ticks, new Decimal(o.ticks), new Decimal(1), BigInt(id), id));
            model.set(id, { ticks: o.ticks, seq: id });
            continue;
          }
          const ids = [...model.keys()];
          if (ids.length === 0) continue;
          const id = ids[o.pick % ids.length] as number;
          const node = nodes.get(id) as BookNode<number>;
          if (o.kind === 'remove') {
            side.remove(node);
            model.delete(id);
          } else {
            const s = seq++;
            side.requeue(node, new Decimal(1), BigInt(s));
            model.set(id, { ticks: node.level.ticks, seq: s });
          }
        }
        const expected = [...model.entries()]
          .sort(([, a], [, b]) =>
            a.ticks === b.ticks ? a.seq - b.seq : isBid ? b.ticks - a.ticks : a.ticks - b.ticks,
          )
          .map(([id]) => id);
        assert.deepEqual(order(side), expected);
        assert.equal(side.size, model.size);
        assert.equal(side.levelCount, new Set([...model.values()].map((m) => m.ticks)).size);
      }),
      { numRuns: 300 },
    );
  });
});
