export {
  startSimulator,
  createSimContext,
  type Simulator,
  type SimulatorOptions,
} from './simulator.js';
export { loadSimConfig, parseSimConfig, type SimConfig } from './config.js';
export type { SimContext } from './context.js';
export { PERMISSIONS, type Permission } from './state/permissions.js';
