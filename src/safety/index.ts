export { SupervisorConfig, checkSupervisorConfig } from './config.js';
export { DeadManSwitch, type DeadManClient } from './dead-man.js';
export { SupervisorMetrics, type HaltCause } from './metrics.js';
export {
  decidePosture,
  nextStepsOf,
  windowOf,
  type Posture,
  type PolicyInput,
} from './status-policy.js';
export { RiskConfig, type PairLimits } from './risk-config.js';
export {
  RiskGuard,
  checkLossQuote,
  checkRiskPairs,
  pairLimits,
  quotesBreach,
  type Breach,
  type PairRisk,
  type RiskOrder,
} from './risk.js';
export {
  OrderEntryWatch,
  type OrderEntrySource,
  type PairOrderEntry,
} from './order-entry-watch.js';
export {
  Supervisor,
  type IntentQueues,
  type RiskSource,
  type HaltFlag,
  type StopReport,
  type SupervisorClient,
  type SupervisorAction,
  type SupervisorOptions,
  type SupervisorStatus,
} from './supervisor.js';
