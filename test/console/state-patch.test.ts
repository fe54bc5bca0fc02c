/**
 * The console stream's patches: applied to the state a page was sent, they give the newest state
 * exactly, whatever changed; and a second's patch of a running deployment is a small part of it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { applyStatePatch, statePatch } from '../../src/console/state-patch.js';
import { FixtureDeployment } from './fixture-state.js';

/** Objects shaped as the state is: each key holds one kind of value (never array and object). */
const prim = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.boolean());
const node = fc.memo((depth): fc.Arbitrary<Record<string, unknown>> => {
  const leaf = { a: prim, b: prim, n: fc.array(fc.integer(), { maxLength: 4 }) };
  if (depth <= 1) return fc.record(leaf, { requiredKeys: [] });
  return fc.record(
    { ...leaf, o: node(depth - 1), l: fc.array(node(depth - 1), { maxLength: 3 }) },
    { requiredKeys: [] },
  );
});

/** As it crosses the wire. */
const wire = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value));

test('a patch applied to the state before gives the state after, over the wire', () => {
  fc.assert(
    fc.property(node(4), node(4), (before, after) => {
      const patch = statePatch(before, after);
      const got = patch === undefined ? before : applyStatePatch(wire(before), wire(patch));
      assert.deepEqual(wire(got), wire(after));
    }),
    { numRuns: 500 },
  );
});

test('unchanged parts are left out; removed keys and items of moved lists are said', () => {
  const before = {
    atMs: 1,
    halt: { halted: true, reason: 'x' },
    pairs: [
      { pair: 'A', ages: [1, 2] },
      { pair: 'B', ages: [3] },
    ],
    events: ['e1'],
  };
  const after = {
    atMs: 2,
    halt: { halted: false },
    pairs: [
      { pair: 'A', ages: [1, 2] },
      { pair: 'B', ages: [4] },
    ],
    events: ['e2', 'e1'],
  };
  assert.deepEqual(statePatch(before, after), {
    atMs: 2,
    halt: { halted: false, reason: null },
    pairs: { 1: { ages: { 0: 4 } } },
    events: ['e2', 'e1'],
  });
  assert.equal(statePatch(after, structuredClone(after)), undefined);
  assert.deepEqual(statePatch({ a: 1, b: undefined }, { a: 1 }), undefined, 'undefined is absent');
});

test("a second's patch of the fixture deployment is under a tenth of its state", () => {
  const deployment = new FixtureDeployment();
  const before = deployment.state();
  deployment.tick();
  const after = deployment.state();
  const patch = JSON.stringify(statePatch(before, after));
  const whole = JSON.stringify(after);
  assert.ok(patch.length < whole.length / 10, `${patch.length} of ${whole.length} bytes`);
  assert.deepEqual(applyStatePatch(before, JSON.parse(patch)), wire(after));
});
