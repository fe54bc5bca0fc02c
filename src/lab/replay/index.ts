export { CountingRedis, type InFlight } from './counting-redis.js';
export { ReplayDriver, type DriverOptions, type DriverProgress } from './driver.js';
export { RecordedEvents, type EventCounts, type MarketEvent } from './recorded-events.js';
export {
  RecordedMarket,
  RECORDED_ASK_KEY,
  RECORDED_BID_KEY,
  RECORDED_TAKER_KEY,
  isRecordedKey,
  type RecordedLevel,
  type RecordedMarketStats,
  type RecordedOrder,
  type RecordedTrade,
} from './recorded-market.js';
export { scanRecording, type RecordingScan } from './recording-scan.js';
export { ReplayClock } from './replay-clock.js';
export { ReplayBus } from './replay-bus.js';
export {
  createReplayVenue,
  type ReplayAccount,
  type ReplayFees,
  type ReplayVenue,
} from './replay-venue.js';
export { DEFAULT_LATENCY_MS, SimTransport, type SimHandler } from './sim-transport.js';
export { QueueCheck, type QueueErrorFigures } from './queue-check.js';
export { OrderEntryCounts, type OrderEntryCount } from './order-entry-counts.js';
export { ReplayHalts, type ReplayHalt, type ReplayHaltsOptions } from './replay-halts.js';
export { StrategyTicks, type StrategyTickCount } from './strategy-ticks.js';
export { storeTrips } from './store-trips.js';
