import { InvalidInputError, type DataSource } from '../core/index.js';
import { REST_CALL_COST, REST_COUNTER, type Tier } from '../exchange/index.js';
import { DEFAULT_INTERVAL_MS, type MarketConfig } from './config.js';

/**
 * Turns the operator's wished poll intervals into intervals the key's REST budget can sustain,
 * before anything is sent: the REST counter decays at a fixed rate per tier, so a plan whose
 * steady rate fits under that decay never earns `EAPI:Rate limit exceeded`, whatever the burst
 * allowance. The dead-man heartbeat is reserved first because losing it cancels every order.
 */

export type PollSource = DataSource | 'systemStatus' | 'tradeVolume';
export type PollScope = 'private' | 'public';

export interface PollWish {
  /** Unique, e.g. `level3:XXBTZUSD`, `openOrders`. */
  readonly id: string;
  readonly source: PollSource;
  /** Pair id, or undefined for a key-wide poll (one call serves every pair). */
  readonly pair: string | undefined;
  readonly scope: PollScope;
  /** REST points (private) or calls (public) one poll spends. */
  readonly cost: number;
  readonly intervalMs: number;
  /** A default, not the operator's: stretching it is the plan, not a warning. */
  readonly byDefault?: boolean;
}

export interface PlannedPoll {
  readonly id: string;
  readonly source: PollSource;
  readonly pair: string | undefined;
  readonly scope: PollScope;
  readonly cost: number;
  readonly wishedIntervalMs: number;
  readonly intervalMs: number;
  /** Delay of the first run after start, so the polls of a scope do not start in one burst. */
  readonly offsetMs: number;
}

export interface PrivateBudget {
  /** Points/s the polls may use: decay * utilization - heartbeat - reserve. */
  readonly availablePerSec: number;
  readonly plannedPerSec: number;
  readonly heartbeatPerSec: number;
  readonly reservePerSec: number;
  /** The tier's counter maximum. */
  readonly max: number;
  /** False when the wished intervals had to be stretched. */
  readonly fits: boolean;
}

export interface PublicBudget {
  readonly availablePerSec: number;
  readonly plannedPerSec: number;
  readonly fits: boolean;
}

export interface BudgetPlan {
  readonly tier: Tier;
  readonly polls: readonly PlannedPoll[];
  readonly private: PrivateBudget;
  readonly public: PublicBudget;
  /** One human sentence per scope that stretched intervals the operator set. */
  readonly warnings: readonly string[];
  /** One sentence per scope that stretched default intervals only (an info line). */
  readonly notes: readonly string[];
}

export interface BudgetInput {
  readonly tier: Tier;
  readonly wishes: readonly PollWish[];
  readonly utilization: number;
  readonly privateReservePerSec: number;
  readonly heartbeat: { readonly intervalMs: number; readonly cost: number };
  readonly publicCallsPerSec: number;
}

const rateOf = (cost: number, intervalMs: number): number => (cost * 1000) / intervalMs;

const sumRate = (polls: readonly { cost: number; intervalMs: number }[]): number =>
  polls.reduce((sum, p) => sum + rateOf(p.cost, p.intervalMs), 0);

const fmt = (n: number): string => n.toFixed(2);

export function planBudget(input: BudgetInput): BudgetPlan {
  checkInput(input);
  const limits = REST_COUNTER[input.tier];
  const heartbeatPerSec = rateOf(input.heartbeat.cost, input.heartbeat.intervalMs);
  const allowed = limits.decayPerSec * input.utilization;
  const privateAvailable = allowed - heartbeatPerSec - input.privateReservePerSec;
  // 1e-9: a float remainder of what is really zero must not pass as budget.
  if (privateAvailable <= 1e-9) {
    const heartbeatAlone = heartbeatPerSec >= allowed;
    throw new InvalidInputError(
      heartbeatAlone ? 'supervisor.heartbeat.interval_s' : 'market.private_reserve_per_sec',
      `tier ${input.tier} decays ${limits.decayPerSec} REST points/s, ${fmt(allowed)}/s at utilization ${input.utilization}; ` +
        `heartbeats need ${heartbeatPerSec.toFixed(3)}/s and the reserve ${input.privateReservePerSec}/s, leaving nothing for polls`,
    );
  }

  const warnings: string[] = [];
  const notes: string[] = [];
  // Stretching defaults only is the plan working; stretching what the operator set, a warning.
  const tell = (wishes: readonly PollWish[], plan: ScopePlan, what: string, fix: string): void => {
    if (plan.fits) return;
    if (wishes.every((w) => w.byDefault === true)) notes.push(`${what} (default intervals)`);
    else warnings.push(`${what}: to fit, ${fix}`);
  };
  const privateWishes = input.wishes.filter((w) => w.scope === 'private');
  const publicWishes = input.wishes.filter((w) => w.scope === 'public');

  const privatePlan = fit(privateWishes, privateAvailable);
  tell(
    privateWishes,
    privatePlan,
    `private polls wish ${fmt(privatePlan.wishedPerSec)} REST points/s but tier ${input.tier} allows ` +
      `${fmt(privateAvailable)} after heartbeats (${fmt(heartbeatPerSec)}/s) and reserve ` +
      `(${fmt(input.privateReservePerSec)}/s); intervals stretched x${fmt(privatePlan.factor)}`,
    'raise interval_ms of the private polls under market.polls (open_orders, balance, level3), ' +
      'turn level3 off, or use a key of a higher tier',
  );
  const publicPlan = fit(publicWishes, input.publicCallsPerSec);
  tell(
    publicWishes,
    publicPlan,
    `public polls wish ${fmt(publicPlan.wishedPerSec)} calls/s but the public budget allows ` +
      `${fmt(input.publicCallsPerSec)}; intervals stretched x${fmt(publicPlan.factor)}`,
    'raise interval_ms of the public polls under market.polls (depth, grouped_book, trades, ' +
      'system_status) or turn some off',
  );

  // The input order is kept, so the caller decides which poll of a scope goes first.
  const planned = new Map<string, PlannedPoll>();
  for (const p of [...privatePlan.polls, ...publicPlan.polls]) planned.set(p.id, p);
  const polls = input.wishes.map((w) => planned.get(w.id) as PlannedPoll);

  return {
    tier: input.tier,
    polls,
    private: {
      availablePerSec: privateAvailable,
      plannedPerSec: sumRate(privatePlan.polls),
      heartbeatPerSec,
      reservePerSec: input.privateReservePerSec,
      max: limits.max,
      fits: privatePlan.fits,
    },
    public: {
      availablePerSec: input.publicCallsPerSec,
      plannedPerSec: sumRate(publicPlan.polls),
      fits: publicPlan.fits,
    },
    warnings,
    notes,
  };
}

interface ScopePlan {
  readonly polls: PlannedPoll[];
  readonly wishedPerSec: number;
  readonly factor: number;
  readonly fits: boolean;
}

/** The longest spread of first runs. */
const MAX_STAGGER_MS = 3_000;

/** Stretches every interval of a scope by one factor, so the operator's proportions survive. */
function fit(wishes: readonly PollWish[], availablePerSec: number): ScopePlan {
  const wishedPerSec = sumRate(wishes);
  const fits = wishedPerSec <= availablePerSec;
  const factor = fits ? 1 : wishedPerSec / availablePerSec;
  // Rounded up, so the planned rate never exceeds what is available.
  const intervals = wishes.map((w) => Math.ceil(w.intervalMs * factor));
  // First runs spread over the smallest interval, but over no more than a few seconds: a stretched
  // plan (a small tier) would otherwise keep the last sources, and so the first quotes, waiting
  // for most of a long interval. The counter's headroom absorbs the short start.
  const window = Math.min(...intervals, MAX_STAGGER_MS);
  let previous = -1;
  const polls = wishes.map((w, i): PlannedPoll => {
    const offsetMs = Math.max(Math.floor((i * window) / wishes.length), previous + 1);
    previous = offsetMs;
    return {
      id: w.id,
      source: w.source,
      pair: w.pair,
      scope: w.scope,
      cost: w.cost,
      wishedIntervalMs: w.intervalMs,
      intervalMs: intervals[i] ?? w.intervalMs,
      offsetMs,
    };
  });
  return { polls, wishedPerSec, factor, fits };
}

function checkInput(input: BudgetInput): void {
  if (!(input.utilization > 0 && input.utilization <= 1)) {
    throw new InvalidInputError(
      'market.utilization',
      `must be in (0, 1], got ${input.utilization}`,
    );
  }
  if (!(input.privateReservePerSec >= 0)) {
    throw new InvalidInputError(
      'market.private_reserve_per_sec',
      `must be >= 0, got ${input.privateReservePerSec}`,
    );
  }
  if (!(input.heartbeat.intervalMs > 0) || !(input.heartbeat.cost >= 0)) {
    throw new InvalidInputError(
      'market.heartbeat',
      `needs interval_ms > 0 and cost >= 0, got ${input.heartbeat.intervalMs} and ${input.heartbeat.cost}`,
    );
  }
  if (!(input.publicCallsPerSec > 0)) {
    throw new InvalidInputError(
      'market.public_budget.calls_per_sec',
      `must be > 0, got ${input.publicCallsPerSec}`,
    );
  }
  const seen = new Set<string>();
  for (const [i, w] of input.wishes.entries()) {
    if (seen.has(w.id)) throw new InvalidInputError(`wishes.${i}.id`, `duplicate id ${w.id}`);
    seen.add(w.id);
    if (!(w.intervalMs > 0) || !Number.isFinite(w.intervalMs)) {
      throw new InvalidInputError(`wishes.${i}.intervalMs`, `must be > 0, got ${w.intervalMs}`);
    }
    if (!(w.cost >= 0)) {
      throw new InvalidInputError(`wishes.${i}.cost`, `must be >= 0, got ${w.cost}`);
    }
  }
}

/**
 * The wishes a configuration implies for these pairs. Key-wide polls come first so that they get
 * the earliest start offsets: open orders and balances matter most to a quoting bot.
 */
export function wishesFor(config: MarketConfig, pairIds: readonly string[]): PollWish[] {
  const p = config.polls;
  const privateCost = REST_CALL_COST.standard;
  // The operator's interval, or the default, which is said so (the planner stretches it quietly).
  const every = (
    poll: keyof typeof DEFAULT_INTERVAL_MS,
  ): Pick<PollWish, 'intervalMs' | 'byDefault'> => {
    const given = p[poll].interval_ms;
    return given === undefined
      ? { intervalMs: DEFAULT_INTERVAL_MS[poll], byDefault: true }
      : { intervalMs: given };
  };
  const wishes: PollWish[] = [
    {
      id: 'openOrders',
      source: 'openOrders',
      pair: undefined,
      scope: 'private',
      // The poll, plus the QueryOrders it sends for orders gone since the last one (filled,
      // cancelled, or replaced by an edit): a quoting bot has some nearly every time.
      cost: 2 * privateCost,
      ...every('open_orders'),
    },
    {
      id: 'balance',
      source: 'balance',
      pair: undefined,
      scope: 'private',
      cost: privateCost,
      ...every('balance'),
    },
  ];
  if (p.trade_volume.enabled) {
    wishes.push({
      id: 'tradeVolume',
      source: 'tradeVolume',
      pair: undefined,
      scope: 'private',
      cost: privateCost,
      ...every('trade_volume'),
    });
  }
  if (p.system_status.enabled) {
    wishes.push({
      id: 'systemStatus',
      source: 'systemStatus',
      pair: undefined,
      scope: 'public',
      cost: 1,
      ...every('system_status'),
    });
  }
  const perPair: [DataSource, PollScope, 'level3' | 'depth' | 'grouped_book' | 'trades'][] = [
    ['level3', 'private', 'level3'],
    ['depth', 'public', 'depth'],
    ['groupedBook', 'public', 'grouped_book'],
    ['trades', 'public', 'trades'],
  ];
  for (const [source, scope, poll] of perPair) {
    if (!p[poll].enabled) continue;
    for (const pair of pairIds) {
      wishes.push({
        id: `${source}:${pair}`,
        source,
        pair,
        scope,
        cost: scope === 'private' ? privateCost : 1,
        ...every(poll),
      });
    }
  }
  return wishes;
}

/** The supervisor's default heartbeat: CancelAllOrdersAfter (1 REST point) every 20 s. */
export const DEFAULT_HEARTBEAT = { intervalMs: 20_000, cost: 1 } as const;

/**
 * REST points per second the executor's periodic full sync of each pair costs (OpenOrders and
 * ClosedOrders, every reconcile interval): the same key pays for it, so the runner's polls must
 * leave it free, whichever process the executor runs in.
 */
export function executorSyncPerSec(pairCount: number, reconcileIntervalMs: number): number {
  return (pairCount * 2 * REST_CALL_COST.standard * 1000) / reconcileIntervalMs;
}

/** planBudget over wishesFor, with the numbers taken from the configuration. */
export function planFromConfig(
  config: MarketConfig,
  tier: Tier,
  pairIds: readonly string[],
  heartbeat: { readonly intervalMs: number; readonly cost: number } = DEFAULT_HEARTBEAT,
): BudgetPlan {
  return planBudget({
    tier,
    wishes: wishesFor(config, pairIds),
    utilization: config.utilization,
    privateReservePerSec: config.private_reserve_per_sec,
    heartbeat,
    publicCallsPerSec: config.public_budget.calls_per_sec,
  });
}
