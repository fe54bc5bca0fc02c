import type { Registry } from 'prom-client';
import { percentile } from '../support/measure.js';

export function percentiles(xs: readonly number[]): { p50: number; p99: number; count: number } {
  const sorted = Float64Array.from(xs).sort();
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), count: xs.length };
}

/** 0.0123 → 0.012, 1.234 → 1.23, 123.4 → 123. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

async function valuesOf(registry: Registry, name: string): Promise<readonly MetricValue[]> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []) as readonly MetricValue[];
}

/** A counter's totals by one label, summed over the others. */
export async function counterTotals(
  registry: Registry,
  name: string,
  label: string,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const v of await valuesOf(registry, name)) {
    const k = String(v.labels[label] ?? '');
    out.set(k, (out.get(k) ?? 0) + v.value);
  }
  return out;
}
