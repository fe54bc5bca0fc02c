import type { Registry } from 'prom-client';

/** The value of the first series of `name` whose labels include `labels` (0 when none). */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = await registry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

/** The sum of the series of `name` on a process's /metrics whose labels include `labels`. */
export async function scrapedValue(
  http: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const text = await (await fetch(`${http}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got = new Map([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got.get(k) === v)) sum += Number(m[3]);
  }
  return sum;
}
