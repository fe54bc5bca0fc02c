import { Gauge, type Registry } from 'prom-client';
import type { RoleBase } from './role-base.js';

/**
 * Metrics of what a process's roles share: the key's REST counter as this process's client models
 * it, and the intents waiting in Redis per pair. Read at scrape time, so they cost nothing between
 * scrapes.
 */
export function registerBaseMetrics(registry: Registry, base: RoleBase): void {
  const registers = [registry];
  const { client, bus, pairs } = base;
  new Gauge({
    name: 'makerd_rest_counter_level',
    help: "The key's REST call counter as this process's client models it (points; decays per tier)",
    registers,
    collect() {
      this.set(client.limiter?.snapshot().level ?? 0);
    },
  });
  new Gauge({
    name: 'makerd_rest_counter_max',
    help: "The tier's REST call counter maximum",
    registers,
    collect() {
      this.set(client.limiter?.snapshot().max ?? 0);
    },
  });
  new Gauge({
    name: 'makerd_intent_queue_depth',
    help: 'Intents waiting in Redis for the executor, per pair',
    labelNames: ['pair'],
    registers,
    async collect() {
      const depths = await Promise.all(pairs.map((p) => bus.pendingCount(p.id)));
      pairs.forEach((p, i) => this.set({ pair: p.altname }, depths[i] ?? 0));
    },
  });
}
