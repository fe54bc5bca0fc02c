import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dec } from '../../src/core/index.js';
import type { OwnOrder, TradingMode } from '../../src/core/market.js';
import { applyMode, pullAll } from '../../src/runner/mode-filter.js';
import type { IntentDraft } from '../../src/runner/quote-diff.js';

const target = {
  txid: 'OLIVE',
  userref: 16777217,
  price: '100',
  volume: '1',
  volumeExecuted: '0',
  openedAtMs: 0,
};
const drafts: IntentDraft[] = [
  { slot: 'ask:0', action: 'cancel', desired: undefined, target, reason: 'pulled:strategy' },
  {
    slot: 'bid:0',
    action: 'amend',
    desired: { side: 'buy', price: '99', volume: '1', postOnly: false },
    target,
    reason: 'moved',
  },
  {
    slot: 'bid:1',
    action: 'place',
    desired: { side: 'buy', price: '98', volume: '1', postOnly: true },
    target: undefined,
    reason: 'new',
  },
  {
    slot: 'ask:1',
    action: 'place',
    desired: { side: 'sell', price: '102', volume: '1', postOnly: false },
    target: undefined,
    reason: 'new',
  },
];

void describe('applyMode', () => {
  const cases: [mode: TradingMode, kept: string[], suppressed: number][] = [
    ['online', ['cancel ask:0 -', 'amend bid:0 false', 'place bid:1 true', 'place ask:1 false'], 0],
    [
      'post_only',
      ['cancel ask:0 -', 'amend bid:0 true', 'place bid:1 true', 'place ask:1 true'],
      0,
    ],
    ['cancel_only', ['cancel ask:0 -'], 3],
    ['maintenance', [], 4],
    ['halted', [], 4],
  ];
  for (const [mode, kept, suppressed] of cases) {
    void it(`${mode}: keeps ${kept.length}, suppresses ${suppressed}`, () => {
      const out = applyMode(drafts, mode);
      assert.deepEqual(
        out.kept.map((d) => `${d.action} ${d.slot} ${d.desired?.postOnly ?? '-'}`),
        kept,
      );
      assert.equal(out.suppressed, suppressed);
    });
  }

  void it('post_only leaves the input drafts untouched', () => {
    applyMode(drafts, 'post_only');
    assert.equal(drafts[1]?.desired?.postOnly, false);
  });

  void it('an unknown mode trades nothing', () => {
    const out = applyMode(drafts, 'auction' as TradingMode);
    assert.deepEqual(out, { kept: [], suppressed: 4 });
  });
});

void describe('pullAll', () => {
  const order = (txid: string, side: 'buy' | 'sell', level: number | undefined): OwnOrder => ({
    txid,
    userref: level === undefined ? null : 16777216 + level,
    slot: level === undefined ? undefined : { side, level },
    generation: level === undefined ? undefined : 0,
    side,
    orderType: 'limit',
    price: dec('100.50'),
    volume: dec('2'),
    volumeExecuted: dec('0.5'),
    openedAtMs: 1_000,
    postOnly: true,
  });

  void it('cancels every order of ours, sorted by slot, and leaves foreign orders alone', () => {
    const out = pullAll(
      [
        order('A', 'sell', 0),
        order('FOREIGN', 'buy', undefined),
        order('B', 'buy', 10),
        order('C', 'buy', 2),
      ],
      'pulled:stale',
    );
    assert.deepEqual(
      out.map((d) => `${d.action} ${d.slot} ${d.target?.txid} ${d.reason}`),
      [
        'cancel bid:2 C pulled:stale',
        'cancel bid:10 B pulled:stale',
        'cancel ask:0 A pulled:stale',
      ],
    );
    assert.deepEqual(out[0]?.target, {
      txid: 'C',
      userref: 16777218,
      price: '100.5',
      volume: '2',
      volumeExecuted: '0.5',
      openedAtMs: 1_000,
    });
    assert.equal(out[0]?.desired, undefined);
  });

  void it('returns nothing when nothing is live', () => {
    assert.deepEqual(pullAll([], 'pulled:stale'), []);
  });
});
