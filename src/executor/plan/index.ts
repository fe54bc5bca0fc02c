export type {
  AddItem,
  BatchRules,
  CancelItem,
  DeferReason,
  DropReason,
  EditItem,
  Plan,
  PlanInput,
  PlannedCall,
  SlotWork,
} from './types.js';
export { cancelsOnly, planCalls } from './planner.js';
export {
  addCost,
  addGroupCost,
  amendOptions,
  cancelCost,
  cancelGroupCost,
  compareDistance,
  distance,
  editCost,
  groupAdds,
  orderAgeMs,
  preferEdit,
  remainingVolume,
  type AmendOptions,
  type Distance,
} from './pricing.js';
