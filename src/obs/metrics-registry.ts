import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * A process's metric registry: the components register their families on it, and it carries
 * prom-client's default process metrics (CPU, memory, event-loop lag, GC, handles) so an operator
 * sees a leak or a stalled loop next to the trading figures.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
