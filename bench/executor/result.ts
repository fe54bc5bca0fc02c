import type { Tier } from '../../src/exchange/index.js';
import type { StallFigures } from '../support/host-steal.js';
import type { DistanceFigures } from './distance.js';
import type { SimFigures } from './setup.js';

export type Contender = 'makerd' | 'naive';

export interface RunOptions {
  readonly tier: Tier;
  readonly seconds: number;
  readonly levels: number;
  /** taskset CPU list for the simulator process; undefined leaves it unpinned. */
  readonly simCpus: string | undefined;
}

/** Raw latency samples in ms. */
export interface Latency {
  readonly samples: readonly number[];
  /** When each sample ended (its call handed to the client), wall-clock ms, where known. */
  readonly endedAtMs?: readonly number[];
}

export interface RunResult {
  readonly tier: Tier;
  readonly contender: Contender;
  /** From the feed's start to the moment the contender was told to stop. */
  readonly durationMs: number;
  /** Order-entry requests signed, by endpoint. */
  readonly orderEntry: ReadonlyMap<string, number>;
  /** Other private requests signed (they spend the key's REST counter), by endpoint. */
  readonly restCalls: ReadonlyMap<string, number>;
  readonly sim: SimFigures;
  readonly pointsCharged: number;
  readonly pointsAvailable: number;
  readonly distance: DistanceFigures;
  /** Snapshot ready (or, later, budget due / order found gone) → order-entry call made. */
  readonly tickToWire: Latency;
  /** The same start → the order open at the engine (AddOrder and EditOrder). */
  readonly toExchange: Latency;
  readonly intentAge: Latency | undefined;
  /** Orders placed more than once for one userref (one generation of one slot). */
  readonly duplicates: number;
  /** Order-entry calls whose outcome was unknown (makerd's executor metric), if counted. */
  readonly unknown: number | undefined;
  /** Share of the run's wall time the hypervisor took from each CPU (host-steal.ts), if known. */
  readonly hostSteal?: readonly number[] | undefined;
  /** How the tick-to-wire samples over the p99 target line up with the host's steal, if known. */
  readonly hostStalls?: StallFigures | undefined;
  /** Free-form lines about where the time or the points went. */
  readonly details: readonly string[];
}
