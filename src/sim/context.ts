import type { Clock } from '../core/index.js';
import type { SimConfig } from './config.js';
import type { Engine } from './engine/types.js';
import type { IdFactory } from './ids.js';
import type { MarketHistory } from './market-data/history.js';
import type { Markets } from './markets.js';
import type { Accounts } from './state/accounts.js';
import type { DeadmanTimers } from './state/deadman.js';
import type { Faults } from './state/faults.js';
import type { SimLimits } from './state/limits.js';
import type { StatusBoard } from './state/status.js';

/** The background market as the admin API and the index price see it. */
export interface BackgroundControl {
  readonly running: boolean;
  pause(): void;
  resume(): void;
  fairValue(pairId: string): string | undefined;
  setFairValue(pairId: string, price: string): void;
  /** The pair's volatility regime (`calm` or `volatile`), for reports and benchmarks. */
  regime(pairId: string): 'calm' | 'volatile' | undefined;
}

/**
 * Everything a route handler may use. Built once by createSimulator (the composition root of the
 * simulator); handlers never construct parts of their own.
 */
export interface SimContext {
  readonly clock: Clock;
  readonly config: SimConfig;
  readonly ids: IdFactory;
  readonly markets: Markets;
  readonly accounts: Accounts;
  readonly engine: Engine;
  readonly history: MarketHistory;
  readonly limits: SimLimits;
  readonly status: StatusBoard;
  readonly deadman: DeadmanTimers;
  readonly faults: Faults;
  readonly background: BackgroundControl;
  /**
   * Registers time-driven work (GTD expiry, async Earn operations, export processing...). It runs
   * every `tick_ms` of the simulator's clock and before each request is handled.
   */
  onTick(work: (nowMs: number) => void): void;
}
