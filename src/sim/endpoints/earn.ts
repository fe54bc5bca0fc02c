/**
 * Earn: strategies, allocations and the asynchronous allocate/deallocate state machine of the spec
 * (one operation per user and strategy at a time).
 *
 * Strategies (only those whose asset is configured):
 * - `ESDQCOL-WTZEU-NU55QF` ETH `bonded`: bonding 1 h (no rewards while bonding), exit queue 1 day
 *   (earns), unbonding 1 day (no rewards), APR 2.5–3.5 %, minimum 0.01, user cap 100, total cap
 *   1000 of which 990 is allocated by other users (so more than 10 ETH hits the total limit).
 * - `ESRFUO3-Q62XD-WIOIL7` XBT `instant`: APR 0.2–0.5 %, minimum 0.0001, user cap 10, total cap
 *   500.
 * - `ESMWVX6-JAPVY-23L3CV` USD `flex`: cannot be allocated manually (`can_allocate` and
 *   `can_deallocate` false); Allocate/Deallocate answer
 *   `EGeneral:Invalid arguments:Strategy cannot be allocated manually`.
 * Both manual strategies need tier intermediate: below it `can_allocate` is false with
 * `allocation_restriction_info: ['tier']` and Allocate is `EEarnings:Permission denied:...`.
 *
 * Strategy item: `{id, asset (altname), lock_type: {type, payout_frequency, and for bonded
 * bonding_period, bonding_period_variable, bonding_rewards, exit_queue_period, unbonding_period,
 * unbonding_period_variable, unbonding_rewards} (seconds), apr_estimate: {low, high},
 * user_min_allocation, allocation_fee, deallocation_fee, auto_compound: {type}, yield_source:
 * {type}, can_allocate, can_deallocate, allocation_restriction_info, user_cap?}`. Sorted by id
 * (descending unless `ascending`); `limit` is validated (uint16). The spec's Earn rule 2: the
 * first page holds all data, so `next_cursor` is always null.
 *
 * Operations: preflight (strategy, amount, flex, tier, minimum, busy) answers synchronously; the
 * operation then completes {@link EARN_OPERATION_MS} later. Allocation checks, at completion,
 * allocatable funds (balance − hold_trade), the user cap and the total cap; deallocation checks
 * the earning (allocated) amount. A deallocation below the minimum is allowed only for the whole
 * earning amount. Funds leave the spot wallet when an allocation completes (ledger `earn` /
 * `allocation`) and come back when a deallocation completes for instant strategies, or after the
 * exit queue and unbonding periods for bonded ones (ledger `earn` / `deallocation`). The status
 * endpoints answer `{pending}` for the last operation of their kind; a failed one keeps answering
 * its error until the next operation of that kind starts. Allocate and Deallocate answer `true`
 * with HTTP 200.
 *
 * Rewards accrue continuously at the low APR on earning funds and compound into the allocation.
 * Allocation item: `{strategy_id, native_asset, amount_allocated: {bonding?, exit_queue?,
 * unbonding?: {native, converted, allocation_count, allocations: [{native, converted,
 * created_at, expires}]}, pending?: {native, converted} (negative for a deallocation), total:
 * {native, converted}}, total_rewarded: {native, converted}, payout: {period_start, period_end,
 * accumulated_reward, estimated_reward}}`. Items are ordered by first use (newest first unless
 * `ascending`). Conversions use the last trade, else the background fair value, else the pair's
 * initial price, directly or through USD.
 */
import { Decimal, toWire } from '../../core/index.js';
import { TIERS, type Tier } from '../../exchange/limits/index.js';
import type { SimContext } from '../context.js';
import { invalidArguments, SimError } from '../errors.js';
import { ok, type Route, type SimRequest } from '../http/route.js';
import type { SimAsset } from '../markets.js';
import type { Account } from '../state/accounts.js';
import { bool, requireText, text } from './order-params.js';
import { optInt, optList } from './public-params.js';
import { callerOf, positiveAmount } from './support.js';

/** Time from an accepted Allocate/Deallocate to its completion. */
export const EARN_OPERATION_MS = 2_000;

const YEAR_MS = 365 * 24 * 3600_000;
const HOUR_S = 3600;
const DAY_S = 24 * HOUR_S;

type LockType = 'flex' | 'bonded' | 'timed' | 'instant';
const LOCK_TYPES: readonly LockType[] = ['flex', 'bonded', 'timed', 'instant'];

export interface EarnStrategy {
  readonly id: string;
  readonly asset: string;
  readonly lockType: LockType;
  readonly payoutFrequencyS: number;
  readonly bondingPeriodS: number;
  readonly bondingRewards: boolean;
  readonly exitQueuePeriodS: number;
  readonly unbondingPeriodS: number;
  readonly unbondingRewards: boolean;
  readonly aprLow: string;
  readonly aprHigh: string;
  readonly minAllocation: string;
  readonly userCap: string | undefined;
  readonly totalCap: string | undefined;
  /** Allocated by users the simulator does not model, counted against the total cap. */
  readonly othersAllocated: string;
  readonly minTier: Tier;
  readonly yieldSource: string;
}

export const EARN_STRATEGIES: readonly EarnStrategy[] = [
  {
    id: 'ESDQCOL-WTZEU-NU55QF',
    asset: 'XETH',
    lockType: 'bonded',
    payoutFrequencyS: 7 * DAY_S,
    bondingPeriodS: HOUR_S,
    bondingRewards: false,
    exitQueuePeriodS: DAY_S,
    unbondingPeriodS: DAY_S,
    unbondingRewards: false,
    aprLow: '2.5',
    aprHigh: '3.5',
    minAllocation: '0.01',
    userCap: '100',
    totalCap: '1000',
    othersAllocated: '990',
    minTier: 'intermediate',
    yieldSource: 'staking',
  },
  {
    id: 'ESRFUO3-Q62XD-WIOIL7',
    asset: 'XXBT',
    lockType: 'instant',
    payoutFrequencyS: 7 * DAY_S,
    bondingPeriodS: 0,
    bondingRewards: false,
    exitQueuePeriodS: 0,
    unbondingPeriodS: 0,
    unbondingRewards: false,
    aprLow: '0.2',
    aprHigh: '0.5',
    minAllocation: '0.0001',
    userCap: '10',
    totalCap: '500',
    othersAllocated: '0',
    minTier: 'intermediate',
    yieldSource: 'opt_in_rewards',
  },
  {
    id: 'ESMWVX6-JAPVY-23L3CV',
    asset: 'ZUSD',
    lockType: 'flex',
    payoutFrequencyS: DAY_S,
    bondingPeriodS: 0,
    bondingRewards: false,
    exitQueuePeriodS: 0,
    unbondingPeriodS: 0,
    unbondingRewards: false,
    aprLow: '3.25',
    aprHigh: '3.25',
    minAllocation: '0',
    userCap: undefined,
    totalCap: undefined,
    othersAllocated: '0',
    minTier: 'starter',
    yieldSource: 'flexible',
  },
];

type LotState = 'bonding' | 'exit_queue' | 'unbonding';

interface Lot {
  readonly state: LotState;
  readonly amount: Decimal;
  readonly createdMs: number;
  readonly expiresMs: number;
}

type OpKind = 'allocate' | 'deallocate';

interface Operation {
  readonly kind: OpKind;
  readonly amount: Decimal;
  readonly dueMs: number;
  readonly refid: string;
}

interface Allocation {
  readonly accountKey: string;
  readonly strategy: EarnStrategy;
  readonly firstUsedMs: number;
  /** Earning funds, exact (compounded rewards carry more places than the asset shows). */
  allocated: Decimal;
  lots: Lot[];
  rewarded: Decimal;
  accruedToMs: number;
  op: Operation | undefined;
  /** The error of the last failed operation of each kind, until the next one starts. */
  readonly failure: { allocate?: string; deallocate?: string };
}

const ZERO = new Decimal(0);

export function earnRoutes(ctx: SimContext): Route[] {
  /** `${accountKey}\n${strategyId}` → allocation record. */
  const records = new Map<string, Allocation>();

  const strategies = (): EarnStrategy[] =>
    EARN_STRATEGIES.filter((s) => ctx.markets.asset(s.asset) !== undefined);

  const tierOk = (account: Account, s: EarnStrategy): boolean =>
    TIERS.indexOf(account.tier) >= TIERS.indexOf(s.minTier);

  /** Committed to the strategy by every account: earning funds plus funds still bonding. */
  const committed = (a: Allocation): Decimal =>
    a.lots.reduce((sum, l) => (l.state === 'bonding' ? sum.plus(l.amount) : sum), a.allocated);

  const accrue = (a: Allocation, toMs: number): void => {
    if (toMs <= a.accruedToMs) return;
    const s = a.strategy;
    let earning = a.allocated;
    for (const l of a.lots) {
      if (
        l.state === 'exit_queue' ||
        (l.state === 'bonding' && s.bondingRewards) ||
        (l.state === 'unbonding' && s.unbondingRewards)
      ) {
        earning = earning.plus(l.amount);
      }
    }
    const reward = earning
      .times(s.aprLow)
      .div(100)
      .times(toMs - a.accruedToMs)
      .div(YEAR_MS);
    a.rewarded = a.rewarded.plus(reward);
    a.allocated = a.allocated.plus(reward);
    a.accruedToMs = toMs;
  };

  const payBack = (a: Allocation, amount: Decimal, atMs: number, refid: string): void => {
    ctx.accounts.get(a.accountKey)?.wallet.post({
      refid,
      timeMs: atMs,
      type: 'earn',
      subtype: 'deallocation',
      asset: a.strategy.asset,
      amount,
    });
  };

  const complete = (a: Allocation, op: Operation): void => {
    a.op = undefined;
    const s = a.strategy;
    const account = ctx.accounts.get(a.accountKey);
    if (account === undefined) return;
    if (op.kind === 'allocate') {
      const failure = allocationFailure(a, op.amount, account);
      if (failure !== undefined) {
        a.failure.allocate = failure;
        return;
      }
      account.wallet.post({
        refid: op.refid,
        timeMs: op.dueMs,
        type: 'earn',
        subtype: 'allocation',
        asset: s.asset,
        amount: op.amount.negated(),
      });
      if (s.bondingPeriodS > 0) {
        a.lots.push({
          state: 'bonding',
          amount: op.amount,
          createdMs: op.dueMs,
          expiresMs: op.dueMs + s.bondingPeriodS * 1000,
        });
      } else {
        a.allocated = a.allocated.plus(op.amount);
      }
      return;
    }
    if (op.amount.gt(a.allocated)) {
      a.failure.deallocate =
        'EEarnings:Insufficient funds:Insufficient funds to complete the (de)allocation request';
      return;
    }
    a.allocated = a.allocated.minus(op.amount);
    const next: LotState | undefined =
      s.exitQueuePeriodS > 0 ? 'exit_queue' : s.unbondingPeriodS > 0 ? 'unbonding' : undefined;
    if (next === undefined) {
      payBack(a, op.amount, op.dueMs, op.refid);
    } else {
      const period = next === 'exit_queue' ? s.exitQueuePeriodS : s.unbondingPeriodS;
      a.lots.push({
        state: next,
        amount: op.amount,
        createdMs: op.dueMs,
        expiresMs: op.dueMs + period * 1000,
      });
    }
  };

  const allocationFailure = (
    a: Allocation,
    amount: Decimal,
    account: Account,
  ): string | undefined => {
    const s = a.strategy;
    if (amount.gt(account.wallet.available(s.asset))) {
      return 'EEarnings:Insufficient funds:Insufficient funds to complete the (de)allocation request';
    }
    if (s.userCap !== undefined && committed(a).plus(amount).gt(s.userCap)) {
      return 'EEarnings:Above max:The allocation exceeds user limit for the strategy';
    }
    if (s.totalCap !== undefined) {
      let total = new Decimal(s.othersAllocated).plus(amount);
      for (const other of records.values()) {
        if (other.strategy.id === s.id) total = total.plus(committed(other));
      }
      if (total.gt(s.totalCap)) {
        return 'EEarnings:Above max:The allocation exceeds the total strategy limit';
      }
    }
    return undefined;
  };

  const expire = (a: Allocation, lot: Lot): void => {
    a.lots = a.lots.filter((l) => l !== lot);
    const s = a.strategy;
    if (lot.state === 'bonding') {
      a.allocated = a.allocated.plus(lot.amount);
    } else if (lot.state === 'exit_queue' && s.unbondingPeriodS > 0) {
      a.lots.push({
        state: 'unbonding',
        amount: lot.amount,
        createdMs: lot.expiresMs,
        expiresMs: lot.expiresMs + s.unbondingPeriodS * 1000,
      });
    } else {
      payBack(a, lot.amount, lot.expiresMs, ctx.ids.ref('E'));
    }
  };

  /** Replays everything due up to `nowMs` in time order, accruing rewards between events. */
  const advance = (a: Allocation, nowMs: number): void => {
    for (;;) {
      let nextMs = a.op?.dueMs;
      let lot: Lot | undefined;
      for (const l of a.lots) {
        if (nextMs === undefined || l.expiresMs < nextMs) {
          nextMs = l.expiresMs;
          lot = l;
        }
      }
      if (nextMs === undefined || nextMs > nowMs) break;
      accrue(a, nextMs);
      if (lot === undefined) complete(a, a.op as Operation);
      else expire(a, lot);
    }
    accrue(a, nowMs);
  };

  const advanceAll = (nowMs: number): void => {
    for (const a of records.values()) advance(a, nowMs);
  };
  ctx.onTick(advanceAll);

  const strategyOf = (req: SimRequest): EarnStrategy => {
    const id = requireText(req.params, 'strategy_id');
    const s = strategies().find((x) => x.id === id);
    if (s === undefined) throw new SimError('EGeneral:Invalid arguments:Invalid strategy ID');
    return s;
  };

  const recordOf = (account: Account, s: EarnStrategy, nowMs: number): Allocation => {
    const id = `${account.key}\n${s.id}`;
    let a = records.get(id);
    if (a === undefined) {
      a = {
        accountKey: account.key,
        strategy: s,
        firstUsedMs: nowMs,
        allocated: ZERO,
        lots: [],
        rewarded: ZERO,
        accruedToMs: nowMs,
        op: undefined,
        failure: {},
      };
      records.set(id, a);
    }
    return a;
  };

  const start = (req: SimRequest, kind: OpKind): ReturnType<typeof ok> => {
    advanceAll(req.nowMs);
    const account = callerOf(req);
    const s = strategyOf(req);
    const asset = ctx.markets.requireAsset(s.asset);
    const amount = positiveAmount(requireText(req.params, 'amount'), 'amount', asset.decimals);
    if (s.lockType === 'flex') {
      throw new SimError('EGeneral:Invalid arguments:Strategy cannot be allocated manually');
    }
    if (kind === 'allocate' && !tierOk(account, s)) {
      throw new SimError("EEarnings:Permission denied:The user's tier is not high enough");
    }
    const existing = records.get(`${account.key}\n${s.id}`);
    const wholeEarning =
      existing === undefined
        ? false
        : amount.eq(existing.allocated.toDecimalPlaces(asset.decimals, Decimal.ROUND_DOWN));
    if (amount.lt(s.minAllocation) && !(kind === 'deallocate' && wholeEarning)) {
      throw new SimError('EEarnings:Below min:(De)allocation operation amount less than minimum');
    }
    if (existing?.op !== undefined) {
      throw new SimError(
        'EEarnings:Busy:Another (de)allocation for the same strategy is in progress',
      );
    }
    const a = existing ?? recordOf(account, s, req.nowMs);
    delete a.failure[kind];
    a.op = { kind, amount, dueMs: req.nowMs + EARN_OPERATION_MS, refid: ctx.ids.ref('E') };
    return ok(true);
  };

  const status = (req: SimRequest, kind: OpKind): ReturnType<typeof ok> => {
    advanceAll(req.nowMs);
    const account = callerOf(req);
    const s = strategyOf(req);
    const a = records.get(`${account.key}\n${s.id}`);
    if (a?.op?.kind === kind) return ok({ pending: true });
    const failure = a?.failure[kind];
    if (failure !== undefined) throw new SimError(failure);
    return ok({ pending: false });
  };

  return [
    {
      family: 'private',
      name: 'Earn/Allocate',
      permission: ['funds-earn'],
      handle: (req) => start(req, 'allocate'),
    },
    {
      family: 'private',
      name: 'Earn/Deallocate',
      permission: ['funds-earn'],
      handle: (req) => start(req, 'deallocate'),
    },
    {
      family: 'private',
      name: 'Earn/AllocateStatus',
      permission: ['funds-earn', 'funds-query'],
      handle: (req) => status(req, 'allocate'),
    },
    {
      family: 'private',
      name: 'Earn/DeallocateStatus',
      permission: ['funds-earn', 'funds-query'],
      handle: (req) => status(req, 'deallocate'),
    },
    {
      family: 'private',
      name: 'Earn/Strategies',
      permission: [],
      handle: (req) => {
        const account = callerOf(req);
        const ascending = bool(req.params, 'ascending');
        const assetName = text(req.params, 'asset');
        const asset = assetName === undefined ? undefined : ctx.markets.asset(assetName);
        const limit = optInt(req.params, 'limit');
        if (limit !== undefined && limit > 0xffff) throw invalidArguments('limit');
        if (req.params.cursor !== undefined && typeof req.params.cursor !== 'string') {
          throw invalidArguments('cursor');
        }
        const lockTypes = optList(req.params, 'lock_type');
        if (lockTypes?.some((t) => !(LOCK_TYPES as readonly string[]).includes(t)) === true) {
          throw invalidArguments('lock_type');
        }
        const items = strategies()
          .filter(
            (s) =>
              (assetName === undefined || s.asset === asset?.id) &&
              (lockTypes === undefined || lockTypes.includes(s.lockType)),
          )
          .sort((x, y) => (ascending ? x.id.localeCompare(y.id) : y.id.localeCompare(x.id)))
          .map((s) => strategyItem(ctx, s, tierOk(account, s)));
        return ok({ next_cursor: null, items });
      },
    },
    {
      family: 'private',
      name: 'Earn/Allocations',
      permission: ['funds-query'],
      handle: (req) => {
        advanceAll(req.nowMs);
        const account = callerOf(req);
        const ascending = bool(req.params, 'ascending');
        const hideZero = bool(req.params, 'hide_zero_allocations');
        const convertedName = text(req.params, 'converted_asset') ?? 'USD';
        const target = ctx.markets.asset(convertedName);
        if (target === undefined) throw invalidArguments('converted_asset');
        const conv = (native: Decimal, from: SimAsset): Record<string, string> => {
          const n = native.toDecimalPlaces(from.decimals, Decimal.ROUND_DOWN);
          const c = valueIn(ctx, n, from.id, target.id) ?? ZERO;
          return {
            native: toWire(n),
            converted: toWire(c.toDecimalPlaces(target.decimals, Decimal.ROUND_HALF_EVEN)),
          };
        };
        let totalAllocated = ZERO;
        let totalRewarded = ZERO;
        const mine = [...records.values()]
          .filter((a) => a.accountKey === account.key)
          .sort((x, y) =>
            ascending ? x.firstUsedMs - y.firstUsedMs : y.firstUsedMs - x.firstUsedMs,
          );
        const items = [];
        for (const a of mine) {
          const s = a.strategy;
          const asset = ctx.markets.requireAsset(s.asset);
          const total = a.lots.reduce((sum, l) => sum.plus(l.amount), a.allocated);
          const shownTotal = total.toDecimalPlaces(asset.decimals, Decimal.ROUND_DOWN);
          if (hideZero && shownTotal.isZero() && a.op === undefined) continue;
          const amountAllocated: Record<string, unknown> = {};
          for (const state of ['bonding', 'exit_queue', 'unbonding'] as const) {
            const lots = a.lots.filter((l) => l.state === state);
            if (lots.length === 0) continue;
            const sum = lots.reduce((acc, l) => acc.plus(l.amount), ZERO);
            amountAllocated[state] = {
              ...conv(sum, asset),
              allocation_count: lots.length,
              allocations: lots.map((l) => ({
                ...conv(l.amount, asset),
                created_at: new Date(l.createdMs).toISOString(),
                expires: new Date(l.expiresMs).toISOString(),
              })),
            };
          }
          if (a.op !== undefined) {
            const pending = conv(a.op.amount, asset);
            amountAllocated.pending =
              a.op.kind === 'allocate'
                ? pending
                : { native: `-${pending.native}`, converted: `-${pending.converted}` };
          }
          const totalConv = conv(total, asset);
          amountAllocated.total = totalConv;
          const rewardedConv = conv(a.rewarded, asset);
          totalAllocated = totalAllocated.plus(totalConv.converted ?? '0');
          totalRewarded = totalRewarded.plus(rewardedConv.converted ?? '0');
          const periodMs = s.payoutFrequencyS * 1000;
          const periodStart = Math.floor(req.nowMs / periodMs) * periodMs;
          const rate = a.allocated.times(s.aprLow).div(100).div(YEAR_MS);
          items.push({
            strategy_id: s.id,
            native_asset: asset.altname,
            amount_allocated: amountAllocated,
            total_rewarded: rewardedConv,
            payout: {
              period_start: new Date(periodStart).toISOString(),
              period_end: new Date(periodStart + periodMs).toISOString(),
              accumulated_reward: conv(rate.times(req.nowMs - periodStart), asset),
              estimated_reward: conv(rate.times(periodMs), asset),
            },
          });
        }
        return ok({
          converted_asset: target.altname,
          total_allocated: toWire(totalAllocated),
          total_rewarded: toWire(totalRewarded),
          next_cursor: null,
          items,
        });
      },
    },
  ];
}

function strategyItem(ctx: SimContext, s: EarnStrategy, tierOk: boolean): Record<string, unknown> {
  const manual = s.lockType !== 'flex';
  const lockType: Record<string, unknown> = {
    type: s.lockType,
    payout_frequency: s.payoutFrequencyS,
  };
  if (s.lockType === 'bonded') {
    Object.assign(lockType, {
      bonding_period: s.bondingPeriodS,
      bonding_period_variable: false,
      bonding_rewards: s.bondingRewards,
      exit_queue_period: s.exitQueuePeriodS,
      unbonding_period: s.unbondingPeriodS,
      unbonding_period_variable: false,
      unbonding_rewards: s.unbondingRewards,
    });
  }
  return {
    id: s.id,
    asset: ctx.markets.asset(s.asset)?.altname ?? s.asset,
    lock_type: lockType,
    apr_estimate: { low: s.aprLow, high: s.aprHigh },
    user_min_allocation: s.minAllocation,
    allocation_fee: '0',
    deallocation_fee: '0',
    auto_compound: { type: 'enabled' },
    yield_source: { type: s.yieldSource },
    can_allocate: manual && tierOk,
    can_deallocate: manual,
    allocation_restriction_info: manual && !tierOk ? ['tier'] : [],
    ...(s.userCap === undefined ? {} : { user_cap: s.userCap }),
  };
}

/**
 * `amount` of asset `fromId` valued in `toId` at the market's current price: a direct pair either
 * way round, else through ZUSD. Undefined when no pair connects them.
 */
export function valueIn(
  ctx: SimContext,
  amount: Decimal,
  fromId: string,
  toId: string,
): Decimal | undefined {
  if (fromId === toId) return amount;
  const direct = rate(ctx, fromId, toId);
  if (direct !== undefined) return amount.times(direct);
  if (fromId === 'ZUSD' || toId === 'ZUSD') return undefined;
  const a = rate(ctx, fromId, 'ZUSD');
  const b = rate(ctx, 'ZUSD', toId);
  return a === undefined || b === undefined ? undefined : amount.times(a).times(b);
}

function rate(ctx: SimContext, fromId: string, toId: string): Decimal | undefined {
  for (const pair of ctx.markets.pairs) {
    const inverse = pair.base === toId && pair.quote === fromId;
    if (!(pair.base === fromId && pair.quote === toId) && !inverse) continue;
    const fair = ctx.background.fairValue(pair.id);
    const price =
      ctx.engine.lastTrade(pair)?.price ??
      (fair === undefined ? pair.initialPrice : new Decimal(fair));
    if (price.isZero()) return undefined;
    return inverse ? new Decimal(1).div(price) : price;
  }
  return undefined;
}
