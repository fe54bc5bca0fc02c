import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * How often the event-loop lag is sampled. prom-client's 10 ms default wakes the loop 100 times a
 * second, 0.4 % of a core on its own here (bench/idle.ts): more than the rest of an idle bot's
 * timers. Each sample still measures its delay exactly; a stall shows in the next one.
 */
const LAG_SAMPLE_MS = 100;

/**
 * A process's metric registry: the components register their families on it, and it carries
 * prom-client's default process metrics (CPU, memory, event-loop lag, GC, handles) so an operator
 * sees a leak or a stalled loop next to the trading figures.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: LAG_SAMPLE_MS });
  return registry;
}
