/**
 * A minimal simulator context for calling the handlers of the "rest of the spec" endpoints
 * directly (no HTTP): real markets, ids, accounts and wallets, a ManualClock, an engine that has
 * no trades, and onTick work run by `tick()`.
 */
import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/core/index.js';
import type { SimContext } from '../../../src/sim/context.js';
import { DEFAULT_ASSETS, DEFAULT_PAIRS } from '../../../src/sim/defaults.js';
import { SimError } from '../../../src/sim/errors.js';
import {
  isRawReply,
  type Family,
  type RawReply,
  type Reply,
  type Route,
  type SimRequest,
} from '../../../src/sim/http/route.js';
import { IdFactory } from '../../../src/sim/ids.js';
import { Markets } from '../../../src/sim/markets.js';
import { Accounts, type Account, type AccountDefinition } from '../../../src/sim/state/accounts.js';
import { PERMISSIONS } from '../../../src/sim/state/permissions.js';
import type { SimTrade } from '../../../src/sim/engine/types.js';

export const BALANCES = { ZUSD: '1000000', XXBT: '100', XETH: '1000' } as const;

export interface Direct {
  readonly ctx: SimContext;
  readonly clock: ManualClock;
  /** Trades the stub engine reports per account key (for exports). */
  readonly trades: Map<string, SimTrade[]>;
  tick(): void;
  /** Advances the clock and runs due work. */
  advance(ms: number): Promise<void>;
  account(def?: Partial<AccountDefinition>): Account;
  /** Calls the route named `name` (spot name or futures/custody pattern) as `account`. */
  call(
    routes: readonly Route[],
    name: string,
    account: Account | undefined,
    params?: Record<string, unknown>,
    pathParams?: Record<string, string>,
  ): Promise<Reply>;
}

let counter = 0;

export function direct(): Direct {
  const clock = new ManualClock(1_700_000_000_000);
  const ids = new IdFactory(7);
  const markets = new Markets(DEFAULT_ASSETS, DEFAULT_PAIRS);
  const accounts = new Accounts(ids, PERMISSIONS);
  const tickers: ((nowMs: number) => void)[] = [];
  const trades = new Map<string, SimTrade[]>();
  const engine = {
    trades: (a: Account) => trades.get(a.key) ?? [],
    lastTrade: () => undefined,
  };
  const background = { fairValue: () => undefined };
  const ctx = {
    clock,
    ids,
    markets,
    accounts,
    engine,
    background,
    onTick: (w: (nowMs: number) => void) => {
      tickers.push(w);
    },
  } as unknown as SimContext;
  const tick = (): void => {
    for (const t of tickers) t(clock.now());
  };
  return {
    ctx,
    clock,
    trades,
    tick,
    advance: async (ms) => {
      await clock.advance(ms);
      tick();
    },
    account: (def = {}) =>
      accounts.upsert(
        {
          key: `k${++counter}`,
          secret: 'c2VjcmV0',
          balances: { ...BALANCES },
          ...def,
        },
        clock.now(),
      ),
    call: async (routes, name, account, params = {}, pathParams = {}) => {
      const route = routes.find((r) => r.name === name);
      assert.ok(route, `no route ${name}`);
      const family: Family = route.family;
      const req: SimRequest = {
        family,
        name,
        method: route.method ?? (family === 'public' ? 'GET' : 'POST'),
        path: name,
        params,
        pathParams,
        headers: {},
        account,
        traceId: 'trace-1',
        nowMs: clock.now(),
        clientId: '127.0.0.1',
      };
      tick();
      return route.handle(req, ctx);
    },
  };
}

/** The envelope result of a spot reply (fails on a raw reply). */
export function resultOf(reply: Reply): unknown {
  assert.ok(!isRawReply(reply), 'expected a result reply');
  return reply.result;
}

export function rawOf(reply: Reply): RawReply {
  assert.ok(isRawReply(reply), 'expected a raw reply');
  return reply;
}

/** Asserts the promise rejects with exactly this spec error string. */
export async function rejectsWith(p: Promise<unknown>, errorString: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof SimError, `expected SimError, got ${String(err)}`);
    assert.equal(err.errorString, errorString);
    return true;
  });
}
