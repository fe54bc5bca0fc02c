import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidInputError, parseWithSchema } from '../../src/core/index.js';
import { REST_COUNTER, TIERS } from '../../src/exchange/index.js';
import {
  MarketConfig,
  planBudget,
  planFromConfig,
  wishesFor,
  type BudgetPlan,
} from '../../src/market/index.js';

const defaults = (): MarketConfig => parseWithSchema(MarketConfig, {}, 'market');
const PAIRS_1 = ['XXBTZUSD'];
const PAIRS_3 = ['XXBTZUSD', 'XETHZUSD', 'XETHXXBT'];

const rate = (plan: BudgetPlan, scope: 'private' | 'public'): number =>
  plan.polls
    .filter((p) => p.scope === scope)
    .reduce((sum, p) => sum + (p.cost * 1000) / p.intervalMs, 0);

describe('market config', () => {
  it('fills the documented defaults', () => {
    const c = defaults();
    assert.equal(c.utilization, 0.8);
    assert.equal(c.public_budget.calls_per_sec, 2);
    // Unset intervals are the planner's defaults, marked so (stretched without a warning).
    assert.equal(c.polls.open_orders.interval_ms, undefined);
    const openOrders = wishesFor(c, PAIRS_1).find((w) => w.id === 'openOrders');
    assert.deepEqual([openOrders?.intervalMs, openOrders?.byDefault], [5000, true]);
    assert.equal(c.polls.grouped_book.grouping, 10);
    assert.equal(c.polls.level3.depth, 25);
    assert.equal(c.polls.system_status.enabled, true);
  });

  it('names the bad field', () => {
    assert.throws(
      () => parseWithSchema(MarketConfig, { utilization: 1.5 }, 'market'),
      (err: unknown) => err instanceof InvalidInputError && err.field === 'market.utilization',
    );
    assert.throws(
      () => parseWithSchema(MarketConfig, { polls: { level3: { depth: 50 } } }, 'market'),
      (err: unknown) =>
        err instanceof InvalidInputError && err.field.startsWith('market.polls.level3.depth'),
    );
    assert.throws(
      () => parseWithSchema(MarketConfig, { polls: { open_orders: { enabled: false } } }, 'market'),
      (err: unknown) =>
        err instanceof InvalidInputError && err.field.startsWith('market.polls.open_orders'),
    );
  });
});

describe('budget planner', () => {
  for (const tier of TIERS) {
    for (const pairs of [PAIRS_1, PAIRS_3]) {
      it(`${tier}, ${pairs.length} pair(s): heartbeat + reserve + polls stay under decay x utilization`, () => {
        const config = parseWithSchema(MarketConfig, { private_reserve_per_sec: 0.02 }, 'market');
        const plan = planFromConfig(config, tier, pairs);
        const limit = REST_COUNTER[tier].decayPerSec * config.utilization;
        const planned = rate(plan, 'private');
        assert.ok(
          planned + plan.private.heartbeatPerSec + plan.private.reservePerSec <= limit + 1e-12,
          `${planned} + ${plan.private.heartbeatPerSec} + 0.02 > ${limit}`,
        );
        assert.ok(Math.abs(plan.private.plannedPerSec - planned) < 1e-12);
        assert.equal(plan.private.heartbeatPerSec, 1 / 20);
        assert.equal(plan.private.max, REST_COUNTER[tier].max);
        assert.ok(rate(plan, 'public') <= config.public_budget.calls_per_sec + 1e-12);

        // Defaults only: an info note exactly when a scope was stretched, never a warning.
        assert.deepEqual(plan.warnings, []);
        const privateNotes = plan.notes.filter((w) => w.startsWith('private'));
        assert.equal(privateNotes.length, plan.private.fits ? 0 : 1);
        for (const p of plan.polls.filter((p) => p.scope === 'private')) {
          if (plan.private.fits) assert.equal(p.intervalMs, p.wishedIntervalMs);
          else assert.ok(p.intervalMs > p.wishedIntervalMs);
        }

        // Distinct start offsets inside each scope.
        for (const scope of ['private', 'public'] as const) {
          const offsets = plan.polls.filter((p) => p.scope === scope).map((p) => p.offsetMs);
          assert.equal(
            new Set(offsets).size,
            offsets.length,
            `${scope} offsets ${offsets.join(',')}`,
          );
        }
      });
    }
  }

  it('starter with defaults stretches them and says so in a note, not a warning', () => {
    const plan = planFromConfig(defaults(), 'starter', PAIRS_1);
    assert.equal(plan.private.fits, false);
    // 0.33 * 0.8 - 0.05 = 0.214 available; OpenOrders 2/5 (with its QueryOrders) + BalanceEx
    // 1/10 + Level3 1/5 + TradeVolume 1/300 wished.
    assert.ok(Math.abs(plan.private.availablePerSec - 0.214) < 1e-9);
    assert.deepEqual(plan.warnings, []);
    assert.deepEqual(plan.notes, [
      'private polls wish 0.70 REST points/s but tier starter allows 0.21 after heartbeats (0.05/s) and reserve (0.00/s); intervals stretched x3.29 (default intervals)',
    ]);
    const oo = plan.polls.find((p) => p.id === 'openOrders');
    assert.equal(oo?.intervalMs, Math.ceil(5000 * ((2 / 5 + 1 / 10 + 1 / 5 + 1 / 300) / 0.214)));
  });

  it('warns, and says how to fit, when an interval the operator set is stretched', () => {
    const config = parseWithSchema(
      MarketConfig,
      { polls: { open_orders: { interval_ms: 5000 } } },
      'market',
    );
    const plan = planFromConfig(config, 'starter', PAIRS_1);
    assert.deepEqual(plan.notes, []);
    assert.deepEqual(plan.warnings, [
      'private polls wish 0.70 REST points/s but tier starter allows 0.21 after heartbeats (0.05/s) and reserve (0.00/s); intervals stretched x3.29: to fit, raise interval_ms of the private polls under market.polls (open_orders, balance, level3), turn level3 off, or use a key of a higher tier',
    ]);
    // Its public polls, all defaults, fit: nothing said of them.
    assert.equal(plan.public.fits, true);
  });

  it('pro with one pair fits its private polls unchanged', () => {
    const plan = planFromConfig(defaults(), 'pro', PAIRS_1);
    assert.equal(plan.private.fits, true);
    assert.deepEqual(
      plan.warnings.filter((w) => w.startsWith('private')),
      [],
    );
    assert.equal(plan.polls.find((p) => p.id === 'level3:XXBTZUSD')?.intervalMs, 5000);
  });

  it('keeps the operator proportions when stretching', () => {
    const plan = planFromConfig(defaults(), 'starter', PAIRS_3);
    const oo = plan.polls.find((p) => p.id === 'openOrders');
    const l3 = plan.polls.find((p) => p.id === 'level3:XETHZUSD');
    assert.ok(oo && l3);
    assert.ok(Math.abs(l3.intervalMs / oo.intervalMs - 5000 / 5000) < 0.001);
  });

  it('stretches public polls against the public budget', () => {
    const plan = planFromConfig(defaults(), 'pro', PAIRS_3);
    // Depth 1/s + GroupedBook 0.2 + Trades 0.2 per pair, SystemStatus 0.2, against 2 calls/s.
    assert.equal(plan.public.fits, false);
    assert.ok(plan.notes.some((w) => w.startsWith('public polls wish 4.40 calls/s')));
    const depth = plan.polls.find((p) => p.id === 'depth:XXBTZUSD')?.intervalMs ?? 0;
    assert.ok(depth >= 2200 && depth <= 2201, `depth every ${depth} ms`);
    assert.equal(planFromConfig(defaults(), 'pro', PAIRS_1).public.fits, true);
  });

  it('builds wishes from the config: key-wide polls once, the rest per pair', () => {
    const config = parseWithSchema(
      MarketConfig,
      { polls: { grouped_book: { enabled: false }, system_status: { enabled: false } } },
      'market',
    );
    const ids = wishesFor(config, PAIRS_3).map((w) => w.id);
    assert.deepEqual(ids.slice(0, 2), ['openOrders', 'balance']);
    assert.equal(ids.filter((id) => id.startsWith('level3:')).length, 3);
    assert.equal(ids.filter((id) => id.startsWith('groupedBook:')).length, 0);
    assert.ok(!ids.includes('systemStatus'));
  });

  it('names the heartbeat interval when heartbeats alone exceed the budget', () => {
    assert.throws(
      () => planFromConfig(defaults(), 'starter', PAIRS_1, { intervalMs: 2000, cost: 1 }),
      (err: unknown) => {
        assert.ok(err instanceof InvalidInputError);
        assert.equal(err.field, 'supervisor.heartbeat.interval_s');
        assert.match(err.message, /tier starter decays 0\.33 REST points\/s/);
        assert.match(err.message, /heartbeats need 0\.500\/s/);
        return true;
      },
    );
  });

  it('names the reserve when the reserve leaves nothing', () => {
    assert.throws(
      () =>
        planBudget({
          tier: 'intermediate',
          wishes: [],
          utilization: 0.8,
          privateReservePerSec: 0.35,
          heartbeat: { intervalMs: 20_000, cost: 1 },
          publicCallsPerSec: 1,
        }),
      (err: unknown) =>
        err instanceof InvalidInputError && err.field === 'market.private_reserve_per_sec',
    );
  });
});
