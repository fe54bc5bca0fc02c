import type { BudgetPlan, PollSource } from '../market/index.js';
import type { RecordedEndpoint } from './format.js';

const RECORDED_SOURCE: Partial<Record<PollSource, RecordedEndpoint>> = {
  depth: 'Depth',
  groupedBook: 'GroupedBook',
  level3: 'Level3',
  trades: 'Trades',
  openOrders: 'OpenOrders',
  systemStatus: 'SystemStatus',
};

/** The planned interval of each recorded endpoint (every pair of a source has the same). */
export function intervalsOf(plan: BudgetPlan): Partial<Record<RecordedEndpoint, number>> {
  const out: Partial<Record<RecordedEndpoint, number>> = {};
  for (const poll of plan.polls) {
    const endpoint = RECORDED_SOURCE[poll.source];
    if (endpoint !== undefined) out[endpoint] = poll.intervalMs;
  }
  return out;
}
