export { ExecutorConfig } from './config.js';
export { Executor, type ExecutorOptions, type ExecutorPairStatus } from './executor.js';
export { ExecutorMetrics, errorLabel, pairLabel } from './metrics.js';
export { ExecutorError, type ExecutorErrorCode } from './errors.js';
export {
  RedisRatecountStore,
  ratecountKeyFor,
  type RatecountReading,
  type RatecountStore,
} from './ratecount-store.js';
export { MemoryRatecountStore } from './memory-ratecount-store.js';
export { PairLease, RedisLeases, beaconOf, type Lease, type Leases } from './lease.js';
export { beaconEnded } from './beacon.js';
export { MemoryLeases } from './memory-leases.js';
export { classifyFailure, type Failure } from './outcome.js';
export type { PairExecutor } from './pair-executor.js';
export type { DrainResult } from './drain.js';
export * from './plan/index.js';
export type { WireSample } from './wire-times.js';
