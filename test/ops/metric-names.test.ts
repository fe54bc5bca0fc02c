/**
 * The Grafana dashboard and the Prometheus alert rules name metrics by string: a renamed or
 * dropped family leaves an empty panel or an alert that never fires, and nothing else notices.
 * This test reads every metric name they query and checks it against what a real `makerd run`
 * (on the simulator) exports on /metrics.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { parse, stringify } from 'yaml';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { makerd, stop } from '../support/spawn.js';
import { until } from '../support/until.js';

const file = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const DASHBOARD = file('config/grafana/dashboards/makerd.json');
const ALERTS = file('config/prometheus/alerts.yml');
const SIM_YAML = file('config/sim.yaml');
const DATASOURCE_UID = 'prometheus';

/** Metric names as the dashboard and rules spell them; PromQL functions and `up` never match. */
const METRIC_NAME = /\b(makerd_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+)\b/g;

interface DataSourceRef {
  readonly type?: string;
  readonly uid?: string;
}

interface Target {
  readonly refId?: string;
  readonly expr?: string;
  readonly datasource?: DataSourceRef | string | null;
}

interface Panel {
  readonly id?: number;
  readonly type?: string;
  readonly title?: string;
  readonly datasource?: DataSourceRef | string | null;
  readonly targets?: readonly Target[];
  readonly panels?: readonly Panel[];
}

interface Dashboard {
  readonly uid?: string;
  readonly title?: string;
  readonly panels?: readonly Panel[];
  readonly templating?: {
    readonly list?: readonly {
      readonly name?: string;
      readonly query?: string | { readonly query?: string };
      readonly definition?: string;
    }[];
  };
  readonly annotations?: {
    readonly list?: readonly { readonly name?: string; readonly expr?: string }[];
  };
}

interface RuleFile {
  readonly groups?: readonly {
    readonly name?: string;
    readonly rules?: readonly { alert?: string; record?: string; expr?: unknown }[];
  }[];
}

/** A PromQL expression and where it was found, for the failure message. */
interface Query {
  readonly where: string;
  readonly expr: string;
}

function loadDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
}

/** Every panel, those inside collapsed rows included. */
function allPanels(panels: readonly Panel[] = []): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels)]);
}

function dashboardQueries(d: Dashboard): Query[] {
  const queries: Query[] = [];
  for (const panel of allPanels(d.panels)) {
    for (const t of panel.targets ?? []) {
      if (t.expr) queries.push({ where: `panel "${panel.title}" ${t.refId ?? ''}`, expr: t.expr });
    }
  }
  for (const v of d.templating?.list ?? []) {
    const query = typeof v.query === 'string' ? v.query : v.query?.query;
    for (const expr of [query, v.definition]) {
      if (expr) queries.push({ where: `variable $${v.name}`, expr });
    }
  }
  for (const a of d.annotations?.list ?? []) {
    if (a.expr) queries.push({ where: `annotation "${a.name}"`, expr: a.expr });
  }
  return queries;
}

/** The alert (and recording) rules' expressions, less the series the recording rules define. */
function alertQueries(): { queries: Query[]; recorded: Set<string> } {
  if (!existsSync(ALERTS)) {
    assert.fail(`${ALERTS} is missing: the Prometheus alert rules should be there`);
  }
  const rules = parse(readFileSync(ALERTS, 'utf8')) as RuleFile | null;
  const queries: Query[] = [];
  const recorded = new Set<string>();
  for (const group of rules?.groups ?? []) {
    for (const rule of group.rules ?? []) {
      if (rule.record) recorded.add(rule.record);
      const name = rule.alert ?? rule.record ?? '?';
      if (typeof rule.expr === 'string' || typeof rule.expr === 'number') {
        queries.push({ where: `rule "${name}" (group ${group.name})`, expr: String(rule.expr) });
      }
    }
  }
  assert.ok(queries.length > 0, `${ALERTS} holds no rule with an expr`);
  return { queries, recorded };
}

/** metric name → where it is queried. */
function referencedNames(queries: readonly Query[]): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const q of queries) {
    for (const [name] of q.expr.matchAll(METRIC_NAME)) {
      const where = names.get(name) ?? [];
      if (!where.includes(q.where)) where.push(q.where);
      names.set(name, where);
    }
  }
  return names;
}

/** The series names an exposition offers: each `# TYPE` family, with a histogram's and summary's series. */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = '', type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

function assertAllExported(
  referenced: ReadonlyMap<string, readonly string[]>,
  exported: ReadonlySet<string>,
  what: string,
): void {
  const missing = [...referenced].filter(([name]) => !exported.has(name));
  assert.deepEqual(
    missing.map(([name]) => name),
    [],
    `${what} query metrics makerd does not export:\n` +
      missing.map(([name, where]) => `  ${name}  (${where.join('; ')})`).join('\n'),
  );
}

describe('the Grafana dashboard', () => {
  it('is valid JSON, with unique panel ids, each panel on the prometheus datasource', () => {
    const d = loadDashboard();
    assert.equal(d.uid, 'makerd');
    const panels = allPanels(d.panels);
    assert.ok(panels.length > 0, 'no panels');
    const ids = panels.map((p) => p.id);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(duplicates, [], 'duplicate panel ids');
    assert.ok(
      ids.every((id) => Number.isInteger(id)),
      'a panel without an id',
    );
    const uid = (ds: Target['datasource']) => (typeof ds === 'object' && ds ? ds.uid : ds);
    for (const p of panels) {
      if (p.type === 'row') continue; // rows group panels and query nothing
      assert.equal(uid(p.datasource), DATASOURCE_UID, `panel "${p.title}" datasource`);
      assert.ok((p.targets ?? []).length > 0, `panel "${p.title}" has no query`);
      for (const t of p.targets ?? []) {
        assert.ok(t.expr, `panel "${p.title}" ${t.refId} has no expr`);
        if (t.datasource !== undefined) {
          assert.equal(uid(t.datasource), DATASOURCE_UID, `panel "${p.title}" ${t.refId}`);
        }
      }
    }
  });
});

describe('metric names the dashboard and alert rules query', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const prefix = freshPrefix();
  let sim: ReturnType<typeof makerd> | undefined;
  let bot: ReturnType<typeof makerd> | undefined;
  let exported = new Set<string>();

  before(
    async () => {
      sim = makerd(['sim', '--port', '0', '--config', SIM_YAML, '--seed', '7']);
      const simUrl = String((await sim.waitFor('makerd sim listening')).url);
      const config = join(mkdtempSync(join(tmpdir(), 'makerd-metrics-')), 'makerd.yaml');
      writeFileSync(
        config,
        stringify({
          exchange: {
            url: simUrl,
            tier: 'starter',
            credentials: { from: 'simulator', account: 'paper-key', sim_config: SIM_YAML },
          },
          redis: { url: REDIS_URL, prefix },
          pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread', options: { levels: 1 } } }],
          http: { port: 0 },
          supervisor: { status: { interval_ms: 500 } },
        }),
      );
      bot = makerd(['run', '--config', config, '--status-every', '0']);
      const http = String((await bot.waitFor('makerd running', 30_000)).http);
      // Some families get their first sample only once the bot quotes; wait for a mid.
      const exposition = await until(
        'a makerd_mid_price sample on /metrics',
        async () => {
          const text = await (await fetch(`${http}/metrics`)).text();
          return /^makerd_mid_price\{[^}]*\} -?\d/m.test(text) ? text : undefined;
        },
        30_000,
        200,
      );
      exported = exportedNames(exposition);
    },
    { timeout: 90_000 },
  );

  after(async () => {
    if (bot) await stop(bot.child);
    if (sim) await stop(sim.child);
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });

  it('every metric the dashboard queries is exported', () => {
    const referenced = referencedNames(dashboardQueries(loadDashboard()));
    assert.ok(referenced.size > 0, 'the dashboard queries no metric');
    assertAllExported(referenced, exported, DASHBOARD);
  });

  it('every metric the alert rules query is exported', () => {
    const { queries, recorded } = alertQueries();
    const referenced = referencedNames(queries);
    for (const name of recorded) referenced.delete(name);
    assertAllExported(referenced, exported, ALERTS);
  });

  it('every makerd family the daemon exports is documented in docs/operations.md', () => {
    const doc = readFileSync(file('docs/operations.md'), 'utf8');
    // Families only: a histogram's _bucket, _sum and _count series are documented with it.
    const families = [...exported].filter((n) => {
      const base = n.replace(/_(bucket|sum|count)$/, '');
      return n.startsWith('makerd_') && (base === n || !exported.has(base));
    });
    assert.ok(families.length > 30, `families: ${families.length}`);
    const undocumented = families.filter((n) => !doc.includes(`\`${n}\``));
    assert.deepEqual(
      undocumented,
      [],
      'exported but missing from the metrics table of docs/operations.md',
    );
  });
});
