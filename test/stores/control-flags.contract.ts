import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { InvalidInputError, type ManualClock } from '../../src/core/index.js';
import type { ControlFlags } from '../../src/bus/index.js';
import { waitFor } from '../bus/support.js';

export interface FlagsFixture {
  readonly flags: ControlFlags;
  /** Another process's flags on the same state (MemoryControlFlags: the same, one process). */
  readonly other: ControlFlags;
  readonly clock: ManualClock;
  /** Lets `ms` pass for the ttls: the manual clock; Redis's PX also waits it in real time. */
  elapse(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** ControlFlags' contract (src/bus/flags.ts): the halt flag, beats and status reports. */
export function controlFlagsContract(name: string, make: () => Promise<FlagsFixture>): void {
  void describe(`ControlFlags contract: ${name}`, () => {
    let fx: FlagsFixture;
    let flags: ControlFlags;
    let other: ControlFlags;
    beforeEach(async () => {
      fx = await make();
      ({ flags, other } = fx);
    });
    afterEach(() => fx.close());

    void it('halt, read and resume round-trip; a second halt keeps the first reason', async () => {
      assert.deepEqual(await flags.read(), { halted: false });
      assert.equal(await flags.halt('max position', 'supervisor', 1_000), true);
      const halted = { halted: true, reason: 'max position', by: 'supervisor', sinceMs: 1_000 };
      assert.deepEqual(await other.read(), halted);
      assert.deepEqual(flags.current(), halted);

      assert.equal(await other.halt('operator', 'cli', 2_000), false);
      assert.deepEqual(other.current(), halted, 'the loser learns the first reason');
      assert.deepEqual(await flags.read(), halted);

      assert.deepEqual(await other.resume(), halted, 'resume says which halt it cleared');
      assert.deepEqual(other.current(), { halted: false });
      assert.deepEqual(await flags.read(), { halted: false });
      assert.deepEqual(await other.resume(), { halted: false });
    });

    void it('fails closed until read; stateSinceMs is known after the first read', async () => {
      assert.equal(flags.current().halted, true);
      assert.equal(flags.stateSinceMs, undefined);
      await flags.read();
      assert.deepEqual(flags.current(), { halted: false });
      const since = flags.stateSinceMs;
      assert.ok(since !== undefined && since <= fx.clock.now(), `stateSinceMs ${since}`);
    });

    void it('after watch(), current() follows a halt and a resume by another within an interval', async () => {
      await flags.watch(1_000, fx.clock);
      assert.deepEqual(flags.current(), { halted: false });
      await other.halt('exchange maintenance', 'supervisor', 5);
      await fx.clock.advance(1_000);
      await waitFor(() => flags.current().halted, 'the watcher to see the halt');
      assert.deepEqual(flags.current(), {
        halted: true,
        reason: 'exchange maintenance',
        by: 'supervisor',
        sinceMs: 5,
      });
      await other.resume();
      await fx.clock.advance(1_000);
      await waitFor(() => !flags.current().halted, 'the watcher to see the resume');
      await flags.unwatch();
      await flags.unwatch();
      await assert.rejects(flags.watch(0, fx.clock), InvalidInputError);
    });

    void it('a CancelAll told by one process reaches the listeners of a watcher', async () => {
      const heard: number[] = [];
      flags.onCancelledAll((atMs) => heard.push(atMs));
      await flags.watch(1_000, fx.clock);
      // A subscription comes up after watch() resolves, and a message before it is lost (the
      // executors keep their own later sync): told again until heard.
      await waitFor(async () => {
        await other.cancelledAll(1_234);
        return heard.length > 0;
      }, 'the watcher to hear the CancelAll');
      assert.deepEqual(new Set(heard), new Set([1_234]));
      await assert.rejects(other.cancelledAll(-1), InvalidInputError);
      await flags.unwatch();
    });

    void it('refuses bad input naming the field', async () => {
      await assert.rejects(flags.halt('', 'cli', 1), { field: 'reason' });
      await assert.rejects(flags.halt('why', '', 1), { field: 'by' });
      await assert.rejects(flags.halt('why', 'cli', 1.5), { field: 'nowMs' });
      await assert.rejects(flags.beat('runner', 1, 0), { field: 'ttlMs' });
      await assert.rejects(flags.beat('runner', -1, 10), { field: 'nowMs' });
      await assert.rejects(flags.beat('supervisor' as 'runner', 1, 10), { field: 'role' });
      await assert.rejects(flags.alive('x' as 'runner'), { field: 'role' });
      await assert.rejects(flags.report('', {}, 10), { field: 'role' });
      await assert.rejects(flags.report('supervisor', {}, 0), { field: 'ttlMs' });
      await assert.rejects(flags.reported(''), { field: 'role' });
      assert.deepEqual(await flags.read(), { halted: false }, 'nothing was halted');
    });

    void it('beat and alive report the last beat within its ttl', async () => {
      assert.equal(await other.alive('runner'), undefined);
      await flags.beat('runner', 1_234, 60_000);
      assert.equal(await other.alive('runner'), 1_234);
      assert.equal(await other.alive('executor'), undefined);
      await flags.beat('runner', 1_300, 60_000);
      assert.equal(await other.alive('runner'), 1_300, 'the last beat');

      await flags.beat('executor', 7, 50);
      assert.equal(await other.alive('executor'), 7);
      await fx.elapse(70);
      await waitFor(
        async () => (await other.alive('executor')) === undefined,
        'the beat to expire',
      );
      assert.equal(await other.alive('runner'), 1_300, 'a beat with a long ttl stays');
    });

    void it('report and reported carry a role status until its ttl', async () => {
      assert.equal(await other.reported('supervisor'), undefined);
      const status = { posture: 'normal', deadMan: { triggerAtMs: 5 } };
      await flags.report('supervisor', status, 60_000);
      status.posture = 'changed after the report';
      assert.deepEqual(await other.reported('supervisor'), {
        posture: 'normal',
        deadMan: { triggerAtMs: 5 },
      });
      await flags.report('supervisor', { posture: 'emergency' }, 50);
      assert.deepEqual(await other.reported('supervisor'), { posture: 'emergency' });
      await fx.elapse(70);
      await waitFor(
        async () => (await other.reported('supervisor')) === undefined,
        'the report to expire',
      );
    });
  });
}
