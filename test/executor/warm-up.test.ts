/**
 * The executor's warm-up before a pair's first order: the pure steps run on made-up intents, and
 * nothing may leave the process (no request, no nonce taken) whatever the tier. The made-up work
 * must be shaped as in trading: V8 compiles the planner for the hidden classes it is shown, and
 * intents or records of another shape throw that code away at the first real drain.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { checkPublishInput } from '../../src/bus/index.js';
import {
  dec,
  ManualClock,
  parseWithSchema,
  type MarketSnapshot,
  type OrderIntent,
  type OwnOrder,
} from '../../src/core/index.js';
import {
  endpoints,
  InProcessNonceSource,
  PairRules,
  PairRulesBook,
  spotSigner,
  TIERS,
  type SigningInput,
  type SpotClient,
} from '../../src/exchange/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import { ExecutorConfig } from '../../src/executor/index.js';
import { openedRecord, pendingRecord } from '../../src/executor/records.js';
import { warmUp, warmUpWork } from '../../src/executor/warm-up.js';
import { pairInfoOf } from '../../src/market/pairs.js';
import type { UnpublishedIntent } from '../../src/runner/ports.js';
import { Runner } from '../../src/runner/runner.js';
import { defineStrategy, Type, type DesiredQuote } from '../../src/runner/strategy-api.js';
import { snapshot } from '../strategies/snapshot-fixture.js';
import { ownOrder } from '../support/own-order.js';
import { clientFor } from '../support/client-for.js';
import { startFakeExchange, type FakeExchange } from '../support/fake-exchange.js';
import { ETHUSD, XBTUSD, XBTUSD_ENTRY } from '../support/pairs.js';

let ex: FakeExchange;
let client: SpotClient;
const floor = Date.now() + 3_600_000;

beforeEach(async () => {
  ex = await startFakeExchange();
  client = clientFor(ex, { nonceSource: new InProcessNonceSource({ floor }) });
});
afterEach(async () => {
  await client.close();
  await ex.close();
});

void describe('warmUp', () => {
  void it('sends nothing and takes no nonce, for every tier and pair', async () => {
    const config = parseWithSchema(ExecutorConfig, {}, 'executor');
    for (const tier of TIERS) {
      for (const pair of [XBTUSD, ETHUSD]) {
        warmUp({
          pair,
          instance: 3,
          limits: MATCHING_ENGINE[tier],
          config,
          client,
          nowMs: Date.now(),
        });
      }
    }
    assert.equal(ex.requests.length, 0, 'nothing crossed the wire');
    await client.balance();
    const [balance] = ex.requestsFor('Balance');
    assert.equal(balance?.nonce, String(floor + 1), 'the next call has the first nonce');
  });

  void it("rehearses the client's side of each order-entry call it plans, signed with nonce 0", () => {
    const signed: SigningInput[] = [];
    const rules = PairRulesBook.fromAssetPairs({ [XBTUSD.id]: XBTUSD_ENTRY });
    const spy = clientFor(ex, {
      pairRules: rules,
      signers: {
        spot: {
          sign: (input, credentials) => {
            signed.push(input);
            return spotSigner.sign(input, credentials);
          },
        },
      },
    });
    warmUp({
      pair: XBTUSD,
      instance: 3,
      limits: MATCHING_ENGINE.starter,
      config: parseWithSchema(ExecutorConfig, {}, 'executor'),
      client: spy,
      nowMs: Date.now(),
    });
    const paths = new Set(signed.map((i) => i.path));
    for (const endpoint of [
      'AddOrderBatch',
      'AddOrder',
      'EditOrder',
      'CancelOrder',
      'CancelOrderBatch',
    ]) {
      assert.ok(
        paths.has(`/0/private/${endpoint}`),
        `${endpoint} rehearsed; got ${[...paths].join(', ')}`,
      );
    }
    assert.ok(
      signed.every((i) => i.nonce === '0'),
      'every rehearsal signed with nonce 0',
    );
    // Each amend reached its signature (the pair's rules let it through), every round; the
    // due's throwaway signature (SpotClient.warm) has the EditOrder path too, without post.
    const amends = signed.filter(
      (i) => i.path === '/0/private/EditOrder' && i.body.includes('oflags=post'),
    );
    assert.ok(amends.length >= 4 && amends.length % 4 === 0, `${amends.length} amends signed`);
    assert.ok(
      amends.every((i) => /&price=\d+\.\d&/.test(i.body)),
      'prices on the 0.1 tick',
    );
    return spy.close();
  });

  void it("returns when the venue's rules refuse its made-up orders, sending nothing", async () => {
    // The client's rules (whole-dollar ticks) disagree with the pair's info the made-up prices
    // are built from (0.1 ticks): each rehearsal stops at the tick check, a typed refusal.
    const coarse = clientFor(ex, {
      pairRules: PairRulesBook.fromAssetPairs({
        [XBTUSD.id]: { ...XBTUSD_ENTRY, tick_size: '1', pair_decimals: 0 },
      }),
    });
    const { places } = warmUpWork(XBTUSD, 3, Date.now());
    const first = places[0]?.desired;
    assert.ok(first);
    assert.throws(
      () =>
        coarse.rehearse(endpoints.addOrder, {
          pair: XBTUSD.id,
          type: first.side,
          ordertype: 'limit',
          price: first.price.toString(),
          volume: first.volume.toString(),
        }),
      /Tick size check failed/,
    );
    warmUp({
      pair: XBTUSD,
      instance: 3,
      limits: MATCHING_ENGINE.starter,
      config: parseWithSchema(ExecutorConfig, {}, 'executor'),
      client: coarse,
      nowMs: Date.now(),
    });
    assert.equal(ex.requests.length, 0, 'nothing crossed the wire');
    await coarse.close();
  });
});

void describe('warmUpWork orders', () => {
  void it("are orders each pair's rules accept, so the client's checks run to the end", () => {
    const venues = [
      XBTUSD_ENTRY,
      { ...XBTUSD_ENTRY, tick_size: '0.01', pair_decimals: 2, ordermin: '0.001', costmin: '' },
      { ...XBTUSD_ENTRY, tick_size: '1', pair_decimals: 0, lot_decimals: 0, ordermin: '50' },
      {
        ...XBTUSD_ENTRY,
        tick_size: '0.00000001',
        pair_decimals: 8,
        lot_decimals: 0,
        ordermin: '1',
        costmin: '5',
      },
      {
        ...XBTUSD_ENTRY,
        tick_size: '0.25',
        pair_decimals: 2,
        lot_decimals: 2,
        ordermin: '0.01',
        costmin: '20000',
      },
    ];
    for (const source of venues) {
      const rules = new PairRules('PX', source);
      const work = warmUpWork(pairInfoOf('PX', source), 3, Date.now());
      for (const intent of [...work.places, ...work.amends]) {
        const d = intent.desired;
        assert.ok(d !== undefined);
        assert.doesNotThrow(
          () => rules.check({ type: d.side, ordertype: 'limit', volume: d.volume, price: d.price }),
          `tick ${source.tick_size}, ordermin ${source.ordermin}, costmin ${source.costmin}: ${d.volume} @ ${d.price}`,
        );
      }
    }
  });
});

/** Each member's path and kind, nested objects included, in the order the object holds them. */
function shape(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object')
    return [`${at}: ${value === null ? 'null' : typeof value}`];
  if (Array.isArray(value)) return [`${at}: array`];
  return Object.entries(value).flatMap(([k, v]) => shape(v, `${at}.${k}`));
}

/** What a runner publishes for XBTUSD through the bus's checks, with the generation it adds. */
async function published(quotes: DesiredQuote[], live: OwnOrder[]): Promise<OrderIntent[]> {
  const out: OrderIntent[] = [];
  const now = 1_700_000_000_000;
  const plugin = defineStrategy({
    name: 'scripted',
    version: '1.0.0',
    options: Type.Object({}),
    init: () => ({}),
    quote: () => ({ quotes }),
  });
  const noop = () => () => undefined;
  const snap: MarketSnapshot = Object.freeze({
    ...snapshot({ takenAtMs: now }),
    // As a live feed has them once OpenOrders and Depth have answered.
    openOrders: Object.freeze(live),
    ordersAsOfMs: now - 100,
    bookAsOfMs: now - 50,
  });
  const log = { info: () => undefined, warn: () => undefined };
  const runner = new Runner({
    feed: { snapshot: () => snap, onUpdate: noop, onFill: noop },
    sink: {
      publish: (intents: readonly UnpublishedIntent[]) => {
        const withGeneration = checkPublishInput(intents).map((i) => ({ ...i, generation: 7 }));
        out.push(...withGeneration);
        return Promise.resolve({ published: withGeneration, coalesced: 0 });
      },
    },
    strategies: [
      {
        pair: XBTUSD,
        plugin,
        context: { pair: XBTUSD, options: {}, log },
        state: plugin.init({ pair: XBTUSD, options: {}, log }),
      },
    ],
    config: {
      price_tolerance_bps: 0,
      volume_tolerance: 0,
      max_order_age_ms: 0,
      intent_ttl_ms: 5_000,
      republish_after_ms: 10_000,
      min_tick_interval_ms: 200,
    },
    instance: 3,
    clock: new ManualClock(now),
  });
  await runner.tick(XBTUSD.id);
  return out;
}

void describe('warmUpWork', () => {
  const quote = (side: 'buy' | 'sell', level: number, price: string): DesiredQuote => ({
    side,
    level,
    price: dec(price),
    volume: dec('0.01'),
  });
  const resting = (side: 'buy' | 'sell', level: number, price: string): OwnOrder =>
    ownOrder(side, level, price, '0.01', 3);
  const work = warmUpWork(XBTUSD, 3, Date.now());

  void it('makes intents shaped as the runner publishes them, for each action', async () => {
    const places = await published([quote('buy', 0, '99.5'), quote('sell', 0, '100.5')], []);
    const amends = await published(
      [quote('buy', 0, '99.5'), quote('sell', 0, '100.5')],
      [resting('buy', 0, '99.4'), resting('sell', 0, '100.6')],
    );
    const cancels = await published([], [resting('buy', 0, '99.4')]);
    for (const [action, real, made] of [
      ['place', places, work.places],
      ['amend', amends, work.amends],
      ['cancel', cancels, work.cancels],
    ] as const) {
      assert.ok(real.length > 0 && made.length > 0, `${action}: intents on both sides`);
      assert.ok(
        [...real, ...made].every((i) => i.action === action),
        `${action}: every intent is a ${action}`,
      );
      assert.deepEqual(shape(made[0]), shape(real[0]), `${action}: same members, same order`);
    }
  });

  void it('makes resting orders shaped as the record of an answered AddOrder', () => {
    const [intent] = work.places;
    assert.ok(intent?.desired !== undefined);
    const answered = openedRecord(
      pendingRecord(XBTUSD.id, intent, 1, intent.desired, 1, 2),
      'OABCDE-FGHIJ-KLMNOP',
      3,
    );
    for (const order of work.resting) assert.deepEqual(shape(order), shape(answered));
    assert.ok(work.resting.every((o) => o.state === 'open' && o.txid !== null));
  });
});
