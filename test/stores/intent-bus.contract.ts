import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { InvalidInputError, type OrderIntent } from '../../src/core/index.js';
import type { IntentBus, PairConsumer } from '../../src/bus/index.js';
import { PAIR, deferred, intent, waitFor } from '../bus/support.js';

const ETH = 'XETHZUSD';
const bid = (price: string) => ({ side: 'buy' as const, price, volume: '0.01', postOnly: true });
const ask = (price: string) => ({ side: 'sell' as const, price, volume: '0.01', postOnly: true });
const prices = (intents: readonly OrderIntent[]) =>
  intents.map((i) => `${i.slot}@${i.desired?.price ?? '-'}#${i.generation}`);

export interface BusFixture {
  readonly bus: IntentBus;
  close(): Promise<void>;
}

/**
 * The intent register's contract (src/bus/bus.ts): generations, coalescing, take and restore by
 * generation, the pending order, and the orders view beside it.
 */
export function intentRegisterContract(name: string, make: () => Promise<BusFixture>): void {
  void describe(`IntentBus register contract: ${name}`, () => {
    let fx: BusFixture;
    let bus: IntentBus;
    beforeEach(async () => {
      fx = await make();
      bus = fx.bus;
    });
    afterEach(() => fx.close());

    void it('publishes generations per slot; pending is sorted bids first, then by level', async () => {
      const result = await bus.publish([
        intent({ slot: 'ask:0', desired: ask('50010') }),
        intent({ slot: 'bid:10', desired: bid('49900') }),
        intent({ slot: 'bid:2', desired: bid('49980') }),
      ]);
      assert.deepEqual(
        result.published.map((i) => [i.slot, i.generation]),
        [
          ['ask:0', 1],
          ['bid:10', 1],
          ['bid:2', 1],
        ],
      );
      assert.equal(result.coalesced, 0);
      assert.deepEqual(result.byPair, { [PAIR]: { published: 3, coalesced: 0 } });
      assert.deepEqual(prices(await bus.pending(PAIR)), [
        'bid:2@49980#1',
        'bid:10@49900#1',
        'ask:0@50010#1',
      ]);
      assert.equal(await bus.pendingCount(PAIR), 3);
      assert.equal(await bus.pendingCount(ETH), 0);
      assert.deepEqual(await bus.pending(ETH), []);
      assert.deepEqual(await bus.pairsWithPending(), [PAIR]);
      assert.equal(bus.prefix.length > 0, true);
    });

    void it('a newer intent for a slot replaces the pending one: coalesced, next generation', async () => {
      await bus.publish([intent({ slot: 'bid:0', desired: bid('49990') })]);
      const again = await bus.publish([intent({ slot: 'bid:0', desired: bid('49995') })]);
      assert.equal(again.coalesced, 1);
      assert.deepEqual(again.byPair, { [PAIR]: { published: 1, coalesced: 1 } });
      assert.equal(again.published[0]?.generation, 2);
      assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@49995#2']);

      // Within one publish too: the later of two intents for a slot stays.
      const twice = await bus.publish([
        intent({ slot: 'bid:0', desired: bid('1') }),
        intent({ slot: 'bid:0', desired: bid('2') }),
      ]);
      assert.deepEqual(
        twice.published.map((i) => i.generation),
        [3, 4],
      );
      assert.equal(twice.coalesced, 2);
      assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@2#4']);
    });

    void it('generations keep rising after the register is emptied', async () => {
      await bus.publish([intent({ slot: 'bid:0' }), intent({ slot: 'bid:10' })]);
      await bus.publish([intent({ slot: 'bid:2' }), intent({ slot: 'bid:0', desired: bid('1') })]);
      const pending = await bus.pending(PAIR);
      assert.deepEqual(prices(pending), ['bid:0@1#2', 'bid:2@50000.0#1', 'bid:10@50000.0#1']);
      const taken = await bus.takeSlots(PAIR, pending);
      assert.deepEqual(taken, pending);
      assert.deepEqual(await bus.pending(PAIR), []);
      assert.deepEqual(await bus.pairsWithPending(), []);

      const next = await bus.publish([intent({ slot: 'bid:0' })]);
      assert.equal(next.published[0]?.generation, 3);
      assert.equal(next.coalesced, 0, 'a taken intent is not coalesced away');
    });

    void it('an amend and a cancel come back exactly as published, targets included', async () => {
      const target = {
        txid: 'OABCDE-FGHIJ-KLMNOP',
        userref: 16_777_217,
        price: '49990',
        volume: '0.02',
        volumeExecuted: '0.005',
        openedAtMs: 1_700_000_000_123,
      };
      const { published } = await bus.publish([
        intent({ slot: 'bid:0', action: 'amend', target, reason: 'moved', ordersAsOfMs: 1_700 }),
        intent({ slot: 'bid:1', depthSeen: { asOfMs: 1_800, prices: ['49990', '49980.5'] } }),
        intent({
          slot: 'ask:0',
          action: 'cancel',
          desired: undefined,
          target,
          reason: 'pulled:stale',
        }),
      ]);
      const intents = await bus.pending(PAIR);
      assert.deepEqual(intents, [published[0], published[1], published[2]]);
      assert.equal(intents[2]?.desired, undefined);
      assert.equal(intents[0]?.ordersAsOfMs, 1_700);
      assert.equal('ordersAsOfMs' in (intents[2] ?? {}), false);
      assert.deepEqual(intents[1]?.depthSeen, { asOfMs: 1_800, prices: ['49990', '49980.5'] });
    });

    void it('keeps only the known fields: a stray one and a caller’s generation are dropped', async () => {
      const input = { ...intent({ slot: 'bid:0' }), generation: 99, note: 'not kept' };
      const { published } = await bus.publish([input]);
      const intents = await bus.pending(PAIR);
      assert.equal(intents.length, 1);
      assert.equal(intents[0]?.generation, 1);
      assert.equal(published[0]?.generation, 1);
      assert.equal('note' in (published[0] ?? {}), false);
      assert.equal('note' in (intents[0] ?? {}), false);
    });

    void it('keeps its own copy of what was published', async () => {
      const list = ['49990', '49980.5'];
      const desired = bid('49990');
      const { published } = await bus.publish([
        intent({ slot: 'bid:0', desired, depthSeen: { asOfMs: 1, prices: list } }),
      ]);
      list[0] = 'changed after the publish';
      desired.price = 'changed after the publish';
      assert.deepEqual(published[0]?.depthSeen?.prices, ['49990', '49980.5']);
      const [pending] = await bus.pending(PAIR);
      assert.deepEqual(pending?.depthSeen?.prices, ['49990', '49980.5']);
      assert.equal(pending?.desired?.price, '49990');
    });

    void it('publishes to several pairs at once, counting each', async () => {
      const result = await bus.publish([
        intent({ pair: ETH }),
        intent({ pair: PAIR }),
        intent({ pair: ETH, slot: 'ask:0', desired: ask('3000') }),
      ]);
      assert.deepEqual(result.byPair, {
        [ETH]: { published: 2, coalesced: 0 },
        [PAIR]: { published: 1, coalesced: 0 },
      });
      assert.deepEqual(
        result.published.map((i) => i.pair),
        [ETH, PAIR, ETH],
      );
      assert.deepEqual(await bus.pairsWithPending(), [ETH, PAIR]);
      assert.equal(await bus.pendingCount(ETH), 2);
      // Slots of two pairs are apart: ETH's bid:0 has its own generations.
      const again = await bus.publish([intent({ pair: ETH })]);
      assert.equal(again.published[0]?.generation, 2);
      assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@50000.0#1']);
    });

    void it('takeSlots removes only the generations it names; newer publishes stay pending', async () => {
      const first = await bus.publish([
        intent({ slot: 'bid:0', desired: bid('100') }),
        intent({ slot: 'ask:0', desired: ask('110') }),
      ]);
      await bus.publish([intent({ slot: 'bid:0', desired: bid('101') })]);
      const picks = first.published.map((i) => ({ slot: i.slot, generation: i.generation }));
      const taken = await bus.takeSlots(PAIR, picks);
      assert.deepEqual(prices(taken), ['ask:0@110#1'], 'bid:0#1 was replaced by #2 meanwhile');
      assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@101#2']);
      assert.deepEqual(await bus.pairsWithPending(), [PAIR]);
      assert.deepEqual(await bus.takeSlots(PAIR, []), []);
      assert.deepEqual(await bus.takeSlots(PAIR, [{ slot: 'bid:7', generation: 1 }]), []);
      assert.deepEqual(
        prices(
          await bus.takeSlots(PAIR, [
            { slot: 'bid:0', generation: 2 },
            { slot: 'bid:0', generation: 2 },
          ]),
        ),
        ['bid:0@101#2'],
        'taken once',
      );
      assert.deepEqual(await bus.pairsWithPending(), [], 'an empty register leaves the pair set');
    });

    void it('restore puts a taken intent back only while its slot is empty and it is the latest', async () => {
      await bus.publish([
        intent({ slot: 'bid:0', desired: bid('49990') }),
        intent({ slot: 'bid:1', desired: bid('49980') }),
      ]);
      const taken = await bus.takeSlots(PAIR, [
        { slot: 'bid:0', generation: 1 },
        { slot: 'bid:1', generation: 1 },
      ]);
      // bid:1 was published again meanwhile: the newer one stays, the old one is not revived.
      await bus.publish([intent({ slot: 'bid:1', desired: bid('49970') })]);
      assert.deepEqual(await bus.restore(PAIR, taken), ['bid:0']);
      const pending = await bus.pending(PAIR);
      assert.deepEqual(prices(pending), ['bid:0@49990#1', 'bid:1@49970#2']);
      assert.deepEqual(pending[0], taken[0], 'put back exactly as taken');
      assert.deepEqual(await bus.restore(PAIR, taken.slice(0, 1)), [], 'the slot is not empty');
      // Taken and superseded by a newer generation that was taken too: not revived either.
      const again = await bus.takeSlots(PAIR, [{ slot: 'bid:1', generation: 2 }]);
      assert.deepEqual(await bus.restore(PAIR, taken.slice(1)), []);
      assert.deepEqual(await bus.restore(PAIR, again), ['bid:1']);
      assert.deepEqual(await bus.restore(PAIR, []), []);
      assert.deepEqual(prices(await bus.pending(PAIR)), ['bid:0@49990#1', 'bid:1@49970#2']);
      // A restore into an emptied register lists the pair again.
      const all = await bus.takeSlots(PAIR, await bus.pending(PAIR));
      assert.deepEqual(await bus.pairsWithPending(), []);
      assert.deepEqual(await bus.restore(PAIR, all), ['bid:0', 'bid:1']);
      assert.deepEqual(await bus.pairsWithPending(), [PAIR]);
    });

    void it('refuses invalid input before writing anything, naming the field', async () => {
      await assert.rejects(
        bus.publish([intent(), intent({ slot: 'ask:1' }), intent({ slot: 'mid:0' })]),
        (err: unknown) => {
          assert.ok(err instanceof InvalidInputError);
          assert.equal(err.field, 'intents[2].slot');
          assert.match(err.message, /^intents\[2\]\.slot: expected bid:N or ask:N/);
          return true;
        },
      );
      await assert.rejects(bus.publish([intent({ pair: '' })]), { field: 'intents[0].pair' });
      await assert.rejects(bus.publish([intent({ slot: '' })]), { field: 'intents[0].slot' });
      await assert.rejects(bus.publish([intent({ ordersAsOfMs: Number.NaN })]), {
        field: 'intents[0].ordersAsOfMs',
      });
      await assert.rejects(
        bus.publish([intent({ depthSeen: { asOfMs: 1, prices: ['49990', 'x'] } })]),
        { field: 'intents[0].depthSeen.prices', message: /\[1\] must be a decimal string/ },
      );
      await assert.rejects(bus.publish([intent({ action: 'amend' })]), {
        message: 'intents[0].target: is required for action amend',
      });
      await assert.rejects(bus.pending('has space'), { field: 'pair' });
      await assert.rejects(bus.takeSlots('', []), { field: 'pair' });
      await assert.rejects(bus.restore('a|b', []), { field: 'pair' });
      await assert.rejects(bus.pendingCount(''), { field: 'pair' });
      await assert.rejects(bus.writeOrdersView({ askedAtMs: Number.NaN, open: {} }, []), {
        field: 'view.askedAtMs',
      });
      assert.deepEqual(await bus.pending(PAIR), []);
      assert.deepEqual(await bus.pairsWithPending(), []);
    });

    void it('the orders view keeps the newest written', async () => {
      assert.equal(await bus.readOrdersView(), undefined);
      const open = { 'OABC-1': { status: 'open', vol_exec: '0' } };
      await bus.writeOrdersView({ askedAtMs: 2_000, open }, []);
      open['OABC-1'].vol_exec = 'changed after the write';
      assert.deepEqual(await bus.readOrdersView(), {
        askedAtMs: 2_000,
        open: { 'OABC-1': { status: 'open', vol_exec: '0' } },
      });
      await bus.writeOrdersView({ askedAtMs: 1_000, open: {} }, []);
      await bus.writeOrdersView({ askedAtMs: 2_000, open: {} }, []);
      assert.equal((await bus.readOrdersView())?.askedAtMs, 2_000, 'older or equal: ignored');
      assert.deepEqual((await bus.readOrdersView())?.open, {
        'OABC-1': { status: 'open', vol_exec: '0' },
      });
      await bus.writeOrdersView({ askedAtMs: 2_001, open: {} }, []);
      assert.deepEqual(await bus.readOrdersView(), { askedAtMs: 2_001, open: {} });
    });
  });
}

/** Counts a pair's steps; each step waits for its gate when one is set. */
class Steps {
  runs = 0;
  running = 0;
  maxRunning = 0;
  gate: Promise<void> | undefined;
  readonly errors: string[] = [];
  readonly seen: string[][] = [];
  constructor(
    readonly bus: IntentBus,
    readonly pair: string,
  ) {}
  readonly step = async (): Promise<void> => {
    this.runs += 1;
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    try {
      const pending = await this.bus.pending(this.pair);
      this.seen.push(prices(await this.bus.takeSlots(this.pair, pending)));
      await this.gate;
    } finally {
      this.running -= 1;
    }
  };
  consume(): PairConsumer {
    return this.bus.consume(this.pair, this.step, {
      lockDurationMs: 30_000,
      onError: (err, where) => this.errors.push(`${where}: ${err.message}`),
    });
  }
}

/**
 * The wake-up semantics of an in-process bus (MemoryIntentBus, ReplayBus): one step at a time per
 * pair; a wake during a step makes exactly one more step; a wake before consume() runs once the
 * pair is consumed; pause holds wakes until resume. BullMQ's are tested with BullMQ
 * (test/bus/intent-bus.test.ts).
 */
export function wakeContract(name: string, make: () => Promise<BusFixture>): void {
  void describe(`IntentBus wake-ups: ${name}`, () => {
    let fx: BusFixture;
    let bus: IntentBus;
    const consumers: PairConsumer[] = [];
    beforeEach(async () => {
      fx = await make();
      bus = fx.bus;
    });
    afterEach(async () => {
      for (const c of consumers.splice(0)) await c.close(true);
      await fx.close();
    });
    const consume = (steps: Steps): void => void consumers.push(steps.consume());

    void it('a publish wakes the pair once; the step finds the intents', async () => {
      const steps = new Steps(bus, PAIR);
      consume(steps);
      await bus.publish([intent({ slot: 'bid:0', desired: bid('100') })]);
      await waitFor(() => steps.seen.length === 1 && steps.running === 0, 'one step');
      assert.deepEqual(steps.seen, [['bid:0@100#1']]);
      assert.equal(steps.runs, 1);
    });

    void it('wakes during a step make exactly one more step, which sees everything published', async () => {
      const steps = new Steps(bus, PAIR);
      const release = deferred();
      steps.gate = release.promise;
      consume(steps);
      await bus.publish([intent({ slot: 'bid:0', desired: bid('100') })]);
      await waitFor(() => steps.seen.length === 1, 'the first step under way');
      await bus.publish([intent({ slot: 'bid:0', desired: bid('101') })]);
      await bus.publish([
        intent({ slot: 'bid:0', desired: bid('102') }),
        intent({ slot: 'ask:1', desired: ask('110') }),
      ]);
      await bus.enqueue(PAIR);
      assert.equal(steps.runs, 1, 'no second step while the first runs');
      steps.gate = undefined;
      release.resolve();
      await waitFor(() => steps.runs === 2 && steps.running === 0, 'the follow-up step');
      assert.deepEqual(steps.seen, [['bid:0@100#1'], ['bid:0@102#3', 'ask:1@110#1']]);
      assert.equal(steps.maxRunning, 1);
      await bus.enqueue(PAIR);
      await waitFor(() => steps.runs === 3 && steps.running === 0, 'a later wake');
      assert.deepEqual(steps.seen[2], []);
    });

    void it('wakes before consume() run once the pair is consumed', async () => {
      await bus.publish([intent({ slot: 'bid:0', desired: bid('100') })]);
      await bus.enqueue(PAIR);
      const steps = new Steps(bus, PAIR);
      consume(steps);
      await waitFor(() => steps.runs === 1 && steps.running === 0, 'the waiting wake');
      assert.deepEqual(steps.seen, [['bid:0@100#1']]);
    });

    void it('pause holds the pair’s wakes until resume; other pairs go on', async () => {
      const steps = new Steps(bus, PAIR);
      const eth = new Steps(bus, ETH);
      consume(steps);
      consume(eth);
      await bus.pause(PAIR);
      await bus.publish([intent({ slot: 'bid:0', desired: bid('100') }), intent({ pair: ETH })]);
      await bus.enqueue(PAIR);
      await waitFor(() => eth.runs === 1 && eth.running === 0, 'ETH’s step');
      assert.equal(steps.runs, 0, 'paused');
      await bus.resume(PAIR);
      await waitFor(() => steps.runs === 1 && steps.running === 0, 'the step after resume');
      assert.deepEqual(steps.seen, [['bid:0@100#1']]);
      await bus.resume(PAIR);
      assert.equal(steps.runs, 1, 'a resume with nothing held runs nothing');
    });

    void it('restore and an orders view wake the pairs they name', async () => {
      const steps = new Steps(bus, PAIR);
      const eth = new Steps(bus, ETH);
      await bus.publish([intent({ slot: 'bid:0', desired: bid('100') })]);
      const taken = await bus.takeSlots(PAIR, [{ slot: 'bid:0', generation: 1 }]);
      consume(steps);
      consume(eth);
      await waitFor(() => steps.runs === 1 && steps.running === 0, 'the publish’s wake');
      assert.deepEqual(steps.seen, [[]], 'taken before the step');
      await bus.restore(PAIR, taken);
      await waitFor(() => steps.runs === 2 && steps.running === 0, 'the restore’s wake');
      assert.deepEqual(steps.seen[1], ['bid:0@100#1']);
      await bus.writeOrdersView({ askedAtMs: 1, open: {} }, [PAIR, ETH]);
      await waitFor(
        () => steps.runs === 3 && eth.runs === 1 && steps.running + eth.running === 0,
        'the view’s wakes',
      );
    });

    void it('a step that throws goes to onError; the next wake runs again', async () => {
      let fail = true;
      const errors: string[] = [];
      let runs = 0;
      consumers.push(
        bus.consume(
          PAIR,
          () => {
            runs += 1;
            return fail ? Promise.reject(new Error('boom')) : Promise.resolve();
          },
          {
            lockDurationMs: 30_000,
            onError: (err, where) => errors.push(`${where}: ${err.message}`),
          },
        ),
      );
      await bus.enqueue(PAIR);
      await waitFor(() => errors.length === 1, 'the error');
      assert.deepEqual(errors, ['step: boom']);
      fail = false;
      await bus.enqueue(PAIR);
      await waitFor(() => runs === 2, 'the next step');
      assert.deepEqual(errors, ['step: boom']);
    });

    void it('close waits for the step under way; wakes after it wait for the next consumer', async () => {
      const steps = new Steps(bus, PAIR);
      const release = deferred();
      steps.gate = release.promise;
      const consumer = steps.consume();
      await bus.enqueue(PAIR);
      await waitFor(() => steps.running === 1, 'the step under way');
      let closed = false;
      const closing = consumer.close(false).then(() => (closed = true));
      await bus.enqueue(PAIR);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(closed, false, 'close waits for the step');
      release.resolve();
      await closing;
      assert.equal(steps.runs, 1, 'no step after close');
      const next = new Steps(bus, PAIR);
      consume(next);
      await waitFor(() => next.runs === 1 && next.running === 0, 'the held wake');
    });
  });
}
