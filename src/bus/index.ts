export { IntentBus, INTENT_JOB_NAME } from './intent-bus.js';
export type {
  IntentBusOptions,
  IntentJobData,
  IntentQueue,
  SlotPick,
  PublishResult,
} from './intent-bus.js';
export { checkPublishInput, encodeBody, type UnpublishedIntent } from './intent-codec.js';
export { BEAT_EVERY_MS, BEAT_TTL_MS, ControlFlags } from './control-flags.js';
export type { ControlFlagsOptions, HaltState, Role } from './control-flags.js';
export { BusError, type BusErrorCode } from './errors.js';
export type { BusConnection } from './connection.js';
export { dropSubscriber } from './connection.js';
export { deleteKeysUnder } from './redis-keys.js';
export { publishOrdersView, readOrdersView, type StoredOrdersView } from './orders-view.js';
export { PulledPairs, type PullState } from './pulled-pairs.js';
