import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dec } from '../../src/core/index.js';
import type { OwnOrder } from '../../src/core/market.js';
import { diffQuotes, type DiffInput, type IntentDraft } from '../../src/runner/quote-diff.js';
import type { RoundedQuote } from '../../src/runner/quote-rounding.js';
import type { Side } from '../../src/runner/strategy-api.js';

const NOW = 1_700_000_000_000;
const defaults = { priceBps: 10, volumeFraction: 0.1, maxAgeMs: 0 };

const want = (
  side: Side,
  level: number,
  price: string,
  volume: string,
  extra: Partial<RoundedQuote> = {},
): RoundedQuote => ({
  side,
  level,
  price: dec(price),
  volume: dec(volume),
  postOnly: true,
  slot: `${side === 'buy' ? 'bid' : 'ask'}:${level}`,
  ...extra,
});

let nextTxid = 0;
const live = (
  side: Side,
  level: number,
  price: string,
  volume: string,
  extra: Partial<Omit<OwnOrder, 'volumeExecuted'>> & { executed?: string } = {},
): OwnOrder => {
  const { executed = '0', ...rest } = extra;
  return {
    txid: `O${String(++nextTxid).padStart(3, '0')}`,
    userref: 0x1000000 + nextTxid,
    slot: { side, level },
    generation: 1,
    side,
    orderType: 'limit',
    price: dec(price),
    volume: dec(volume),
    volumeExecuted: dec(executed),
    openedAtMs: NOW - 1_000,
    postOnly: true,
    ...rest,
  };
};

const diff = (input: Partial<DiffInput>): IntentDraft[] =>
  diffQuotes({ desired: [], live: [], nowMs: NOW, defaults, ...input });

/** `action slot reason`, enough to compare plans in a table. */
const brief = (drafts: IntentDraft[]): string[] =>
  drafts.map((d) => `${d.action} ${d.slot} ${d.reason}`);

void describe('diffQuotes: one slot, live vs desired', () => {
  const cases: [name: string, desired: RoundedQuote[], orders: OwnOrder[], plan: string[]][] = [
    ['nothing live, quote wanted', [want('buy', 0, '100', '1')], [], ['place bid:0 new']],
    ['live, no longer wanted', [], [live('sell', 1, '101', '1')], ['cancel ask:1 pulled:strategy']],
    ['identical', [want('buy', 0, '100', '1')], [live('buy', 0, '100', '1')], []],
    [
      'price exactly at 10 bps above',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100.1', '1')],
      [],
    ],
    [
      'price exactly at 10 bps below',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '99.9', '1')],
      [],
    ],
    [
      'price just above 10 bps',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100.10001', '1')],
      ['amend bid:0 moved'],
    ],
    [
      'price just below -10 bps',
      [want('sell', 0, '100', '1')],
      [live('sell', 0, '99.89999', '1')],
      ['amend ask:0 moved'],
    ],
    [
      'quote tolerance overrides the default',
      [want('buy', 0, '100', '1', { tolerance: { priceBps: 20 } })],
      [live('buy', 0, '100.2', '1')],
      [],
    ],
    [
      'quote tolerance can be tighter than the default',
      [want('buy', 0, '100', '1', { tolerance: { priceBps: 0 } })],
      [live('buy', 0, '100.01', '1')],
      ['amend bid:0 moved'],
    ],
    ['volume exactly 10% over', [want('buy', 0, '100', '1')], [live('buy', 0, '100', '1.1')], []],
    ['volume exactly 10% under', [want('buy', 0, '100', '1')], [live('buy', 0, '100', '0.9')], []],
    [
      'volume just over 10%',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100', '1.10000001')],
      ['amend bid:0 resized'],
    ],
    [
      'volume just under 10%',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100', '0.89999999')],
      ['amend bid:0 resized'],
    ],
    [
      'partly filled, remainder matches',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100', '2', { executed: '1' })],
      [],
    ],
    [
      'partly filled, remainder too small',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100', '1', { executed: '0.5' })],
      ['amend bid:0 resized'],
    ],
    [
      'volume tolerance override',
      [want('buy', 0, '100', '1', { tolerance: { volumeFraction: 0.5 } })],
      [live('buy', 0, '100', '1', { executed: '0.5' })],
      [],
    ],
    [
      'desired post-only, live not',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100', '1', { postOnly: false })],
      ['amend bid:0 flags'],
    ],
    [
      'live post-only, desired not: stricter is fine',
      [want('buy', 0, '100', '1', { postOnly: false })],
      [live('buy', 0, '100', '1')],
      [],
    ],
    [
      'moved wins over resized and flags',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '101', '5', { postOnly: false })],
      ['amend bid:0 moved'],
    ],
    [
      'quote maxAgeMs: exactly that old',
      [want('buy', 0, '100', '1', { maxAgeMs: 1_000 })],
      [live('buy', 0, '100', '1')],
      ['amend bid:0 max-age'],
    ],
    [
      'quote maxAgeMs: 1 ms younger',
      [want('buy', 0, '100', '1', { maxAgeMs: 1_001 })],
      [live('buy', 0, '100', '1')],
      [],
    ],
    [
      'maxAgeMs 0 is off however old',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '100', '1', { openedAtMs: 0 })],
      [],
    ],
    [
      'two live, one wanted: keep the closest',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '99', '1', { txid: 'far' }), live('buy', 0, '100', '1', { txid: 'near' })],
      ['cancel bid:0 duplicate'],
    ],
    [
      'two live, closest still drifted: cancel one, amend the other',
      [want('buy', 0, '100', '1')],
      [live('buy', 0, '98', '1'), live('buy', 0, '99', '1')],
      ['cancel bid:0 duplicate', 'amend bid:0 moved'],
    ],
    [
      'two live, none wanted',
      [],
      [
        live('sell', 0, '101', '1', { txid: 'old', openedAtMs: NOW - 5_000 }),
        live('sell', 0, '101', '1', { txid: 'new' }),
      ],
      // Same slot and action: ordered by txid ('new' < 'old').
      ['cancel ask:0 pulled:strategy', 'cancel ask:0 duplicate'],
    ],
    [
      'live side disagrees with its slot',
      [want('buy', 0, '100', '1')],
      [{ ...live('buy', 0, '100', '1'), side: 'sell' }],
      ['cancel bid:0 side-mismatch', 'place bid:0 side-mismatch'],
    ],
    [
      'foreign order is left alone',
      [],
      [{ ...live('buy', 0, '100', '1'), slot: undefined, userref: null }],
      [],
    ],
  ];
  for (const [name, desired, orders, plan] of cases) {
    void it(name, () => {
      assert.deepEqual(brief(diff({ desired, live: orders })), plan);
    });
  }

  void it('uses the default maxAgeMs when the quote has none', () => {
    const orders = [live('buy', 0, '100', '1', { openedAtMs: NOW - 60_000 })];
    const desired = [want('buy', 0, '100', '1')];
    const withAge = { ...defaults, maxAgeMs: 60_000 };
    assert.deepEqual(brief(diff({ desired, live: orders, defaults: withAge })), [
      'amend bid:0 max-age',
    ]);
    const younger = [{ ...orders[0]!, openedAtMs: NOW - 59_999 }];
    assert.deepEqual(brief(diff({ desired, live: younger, defaults: withAge })), []);
  });

  void it('cancels the duplicate that is farther away, by txid', () => {
    const drafts = diff({
      desired: [want('buy', 0, '100', '1')],
      live: [
        live('buy', 0, '99', '1', { txid: 'far' }),
        live('buy', 0, '100', '1', { txid: 'near' }),
      ],
    });
    assert.deepEqual(
      drafts.map((d) => d.target?.txid),
      ['far'],
    );
  });

  void it('with no quote wanted, pulls the newest duplicate as missing and the rest as duplicate', () => {
    const drafts = diff({
      live: [
        live('sell', 0, '101', '1', { txid: 'B', openedAtMs: NOW - 5_000 }),
        live('sell', 0, '101', '1', { txid: 'A', openedAtMs: NOW - 100 }),
      ],
      reasonForMissing: 'pulled:stale',
    });
    assert.deepEqual(
      drafts.map((d) => [d.target?.txid, d.reason]),
      [
        ['A', 'pulled:stale'],
        ['B', 'duplicate'],
      ],
    );
  });
});

void describe('diffQuotes: intent contents', () => {
  void it('a place carries wire strings and no target', () => {
    const [draft] = diff({
      desired: [want('sell', 2, '100.10', '0.50000000', { postOnly: false })],
    });
    assert.deepEqual(draft, {
      slot: 'ask:2',
      action: 'place',
      desired: { side: 'sell', price: '100.1', volume: '0.5', postOnly: false },
      target: undefined,
      reason: 'new',
    });
  });

  void it('an amend carries the desired order and the live order (total volume) as target', () => {
    const order = live('buy', 1, '99.5', '2', { txid: 'OABC', userref: 16777217, executed: '0.5' });
    const [draft] = diff({ desired: [want('buy', 1, '99', '1.5')], live: [order] });
    assert.deepEqual(draft, {
      slot: 'bid:1',
      action: 'amend',
      desired: { side: 'buy', price: '99', volume: '1.5', postOnly: true },
      target: {
        txid: 'OABC',
        userref: 16777217,
        price: '99.5',
        volume: '2',
        volumeExecuted: '0.5',
        openedAtMs: NOW - 1_000,
      },
      reason: 'moved',
    });
  });

  void it('a cancel carries only the target', () => {
    const [draft] = diff({ live: [live('buy', 0, '0.0000001', '1000', { txid: 'T' })] });
    assert.equal(draft?.desired, undefined);
    assert.equal(draft?.target?.price, '0.0000001');
  });
});

void describe('diffQuotes: order of the plan', () => {
  void it('cancels, then amends, then places; bids before asks; levels numerically', () => {
    const drafts = diff({
      desired: [
        want('sell', 10, '110', '1'),
        want('buy', 10, '90', '1'),
        want('buy', 2, '98', '1'),
        want('sell', 0, '100.5', '1'),
        want('buy', 0, '99.5', '1'),
      ],
      live: [
        live('sell', 0, '105', '1'),
        live('buy', 2, '97', '1'),
        live('sell', 3, '103', '1'),
        live('buy', 11, '89', '1'),
        live('buy', 0, '99.5', '1'),
      ],
    });
    assert.deepEqual(brief(drafts), [
      'cancel bid:11 pulled:strategy',
      'cancel ask:3 pulled:strategy',
      'amend bid:2 moved',
      'amend ask:0 moved',
      'place bid:10 new',
      'place ask:10 new',
    ]);
  });
});
