import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { readOrderEntry } from '../../../src/bus/index.js';
import { encodeUserref, parseSlotKey, type OrderIntent } from '../../../src/core/index.js';
import type { AddItem, ExecutorConfig } from '../../../src/executor/index.js';
import { OrderCalls } from '../../../src/executor/order-calls.js';
import { until } from '../../support/until.js';
import { startParts, type Parts } from './support.js';

/**
 * Issue #42 item 3: order entry fitted to the link. The simulator holds each AddOrder for its
 * latency on the test's manual clock, so the engine reads the `deadline` that much later.
 */
void describe('OrderEntryLink: the deadline follows the round trip, and a link too slow is said', () => {
  let p: Parts | undefined;
  afterEach(async () => {
    await p?.sim.admin('POST', '/_sim/faults', {});
    await p?.close();
    p = undefined;
  });

  const setup = async (config: Partial<ExecutorConfig> = {}) => {
    const parts = await startParts({ tier: 'pro', config });
    p = parts;
    const calls = new OrderCalls(parts.ctx, parts.wire);
    let generation = 0;
    /** One AddOrder of a bid on a slot of its own; resolves with its userref once answered. */
    const add = (slot: string, price: string) => {
      const intent: OrderIntent = {
        ...parts.intent(slot, { side: 'buy', price, volume: '0.01' }),
        generation: ++generation,
      };
      const item: AddItem = {
        intent,
        side: 'buy',
        price,
        volume: '0.01',
        postOnly: true,
        replacing: undefined,
      };
      const userref = encodeUserref(1, parseSlotKey(slot), intent.generation);
      return { userref, done: calls.run([{ kind: 'AddOrder', item, cost: 1 }]) };
    };
    /** The order's record, live or retired. */
    const recordOf = async (userref: number) =>
      (await parts.tracker.get(parts.pair.id, userref)) ??
      (await parts.tracker.history(parts.pair.id)).find((o) => o.userref === userref);
    /** Sends an AddOrder and moves the clock by `ms` once the simulator holds it. */
    const addThrough = async (slot: string, price: string, ms: number) => {
      const held = parts.sim.ctx.faults.counts.delayed;
      const call = add(slot, price);
      await until('the AddOrder held by the simulator', () =>
        parts.sim.ctx.faults.counts.delayed > held ? true : undefined,
      );
      await parts.advance(ms);
      await call.done;
      return recordOf(call.userref);
    };
    const slow = (latency_ms: number) =>
      parts.sim.admin('POST', '/_sim/faults', { paths: ['AddOrder'], latency_ms });
    return { parts, add, addThrough, slow };
  };

  void it('2 s one way: the first call goes unanswered, the next carries 5 s and rests on the book', async () => {
    const { parts, addThrough, slow } = await setup();
    await slow(2_000);
    const first = await addThrough('bid:0', '49000.0', 2_000);
    assert.equal(first?.state, 'unknown', 'no answer within the 2 s floor');
    assert.equal(first.deadlineMs - first.sentAtMs, 3_000, 'the floor, before any measure');

    const second = await addThrough('bid:1', '48900.0', 2_000);
    assert.equal(second?.state, 'open', 'accepted: 3 s of its deadline left at the engine');
    assert.equal(second.deadlineMs - second.sentAtMs, 5_000, '2 s + the 2 s minimum + 1 s');
    const book = (await parts.simOrders()).map((o) => o.txid);
    assert.ok(book.includes(second.txid as string), 'on the simulator’s book');
    assert.equal(await parts.metric('makerd_order_entry_round_trip_p99_seconds'), 2);
    assert.equal(await parts.metric('makerd_order_entry_deadline_seconds'), 5);
    assert.equal(await parts.metric('makerd_order_entry_failing'), 0);
    assert.deepEqual(
      parts.logs.filter((l) => l.msg.startsWith('order entry failing')),
      [],
      'the link is slow, not failing',
    );
  });

  void it('longer than deadline_max_ms allows: one warning naming latency and deadline, the report, the metric; one line on recovery', async () => {
    const { parts, add, addThrough, slow } = await setup({ deadline_max_ms: 4_000 });
    await slow(3_000);
    assert.equal((await addThrough('bid:0', '49000.0', 2_000))?.state, 'unknown');
    assert.equal(await parts.metric('makerd_order_entry_failing'), 0, 'the deadline could grow');
    // 4 s now, the most allowed: read by the engine 3 s later, 1 s ahead, under its 2 s minimum.
    const late = await addThrough('bid:1', '48900.0', 3_000);
    assert.deepEqual(
      [late?.state, late?.reason],
      ['rejected', 'EGeneral:Invalid arguments:deadline'],
    );
    await addThrough('bid:2', '48800.0', 3_000);
    const warnings = parts.logs.filter((l) => l.msg.startsWith('order entry failing'));
    assert.deepEqual(
      warnings.map((w) => [w.level, w.fields.roundTripMs, w.fields.deadlineMs]),
      [['warn', 3_000, 4_000]],
      'one warning for the episode, naming the round trip and the deadline',
    );
    assert.equal(await parts.metric('makerd_order_entry_failing'), 1);
    const report = await readOrderEntry(parts.flags, parts.pair.id);
    assert.deepEqual(
      { ...report, sinceMs: undefined },
      { failing: true, sinceMs: undefined, roundTripP99Ms: 3_000, deadlineMs: 4_000 },
    );

    await parts.sim.admin('POST', '/_sim/faults', {});
    const call = add('bid:3', '48700.0');
    await call.done;
    assert.equal((await parts.tracker.get(parts.pair.id, call.userref))?.state, 'open');
    const recovered = parts.logs.filter((l) => l.msg.startsWith('order entry recovered'));
    assert.equal(recovered.length, 1);
    assert.equal(recovered[0]?.fields.failingForMs, 3_000);
    assert.equal(await parts.metric('makerd_order_entry_failing'), 0);
    assert.equal((await readOrderEntry(parts.flags, parts.pair.id))?.failing, false);
  });
});
