export { RedisIntentBus, INTENT_JOB_NAME } from './intent-bus.js';
export type { IntentBusOptions, IntentJobData, IntentQueue } from './intent-bus.js';
export type { ConsumeOptions, IntentBus, PairConsumer, PublishResult, SlotPick } from './bus.js';
export { MemoryIntentBus } from './memory-intent-bus.js';
export { DirectWakes } from './direct-wakes.js';
export { checkPublishInput, encodeBody, type UnpublishedIntent } from './intent-codec.js';
export { BEAT_EVERY_MS, BEAT_TTL_MS, RedisControlFlags } from './control-flags.js';
export type { ControlFlagsOptions } from './control-flags.js';
export { ROLES, type ControlFlags, type HaltState, type Role } from './flags.js';
export { MemoryControlFlags } from './memory-control-flags.js';
export { BusError, type BusErrorCode } from './errors.js';
export type { BusConnection } from './connection.js';
export { dropSubscriber } from './connection.js';
export { deleteKeysUnder } from './redis-keys.js';
export type { StoredOrdersView } from './orders-view.js';
export { MemoryPullList, PulledPairs, type PullList, type PullState } from './pulled-pairs.js';
export {
  orderEntryFailure,
  orderEntryRole,
  readOrderEntry,
  type OrderEntryReport,
} from './order-entry-report.js';
