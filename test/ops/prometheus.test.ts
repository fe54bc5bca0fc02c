import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { parse, stringify } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(ROOT, 'config', 'prometheus');
const CONFIG = 'config/prometheus/prometheus.yml';
const ALERTS = 'config/prometheus/alerts.yml';
const ALERT_TESTS = 'config/prometheus/alerts.test.yml';

/** Issue #7: halted, heartbeat stale, any rate-limit rejection, queue backlog, stale data, inventory or loss near its limit, target down. */
const REQUIRED = [
  'MakerdHalted',
  'MakerdHeartbeatStale',
  'MakerdRateLimitRejection',
  'MakerdQueueBacklog',
  'MakerdStaleData',
  'MakerdInventoryNearLimit',
  'MakerdLossNearLimit',
  'MakerdTargetDown',
];

const MISSING =
  "promtool is not installed: install Debian's prometheus package (apt-get install prometheus)";

interface Rule {
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Rules {
  groups: { name: string; rules: Rule[] }[];
}
interface RuleTests {
  rule_files: string[];
  tests: {
    name: string;
    alert_rule_test?: { eval_time: string; alertname: string; exp_alerts?: unknown[] }[];
  }[];
}
interface ScrapeConfig {
  job_name: string;
  scrape_interval?: string;
  metrics_path?: string;
  authorization?: { credentials_file?: string };
  static_configs?: { targets: string[] }[];
}
interface PromConfig {
  rule_files?: string[];
  scrape_configs?: ScrapeConfig[];
}

function readYaml<T>(path: string): T {
  return parse(readFileSync(join(ROOT, path), 'utf8')) as T;
}

interface Run {
  readonly code: number | string;
  readonly stdout: string;
  readonly stderr: string;
}

function promtool(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile('promtool', args, { cwd: ROOT }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : (err.code ?? 1), stdout, stderr });
    });
  });
}

let found: Promise<boolean> | undefined;

/** False (test skipped) without promtool, unless MAKERD_REQUIRE_TOOLS=1 makes that a failure. */
async function havePromtool(t: TestContext): Promise<boolean> {
  found ??= promtool(['--version']).then((r) => r.code !== 'ENOENT');
  if (await found) return true;
  if (process.env.MAKERD_REQUIRE_TOOLS === '1') {
    assert.fail(`${MISSING}; MAKERD_REQUIRE_TOOLS=1 does not allow skipping`);
  }
  t.skip(MISSING);
  return false;
}

function assertSuccess(run: Run, what: string): void {
  const output = `${run.stdout}\n${run.stderr}`;
  assert.equal(run.code, 0, `${what} exited with ${run.code}:\n${output}`);
  assert.match(run.stdout, /SUCCESS/, `${what} printed no SUCCESS:\n${output}`);
  assert.doesNotMatch(output, /FAILED/, `${what}:\n${output}`);
}

function alertRules(): Rule[] {
  return readYaml<Rules>(ALERTS).groups.flatMap((g) => g.rules.filter((r) => r.alert));
}

/** Every metric family name makerd's source registers (`name: 'makerd_…'`). */
function registeredFamilies(): Set<string> {
  const names = new Set<string>();
  const src = join(ROOT, 'src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(src, file), 'utf8');
    for (const m of text.matchAll(/name: '(makerd_[a-z0-9_]+)'/g)) names.add(m[1] as string);
  }
  return names;
}

describe('Prometheus configuration and alerts (config/prometheus)', () => {
  it('promtool accepts prometheus.yml, and with a token file present its rule files too', async (t) => {
    if (!(await havePromtool(t))) return;
    assertSuccess(await promtool(['check', 'config', '--syntax-only', CONFIG]), 'check config');

    // The bearer token file exists only in the container (/run/secrets): check a copy that
    // names a temporary one, its rule files resolved against the original folder.
    const dir = mkdtempSync(join(tmpdir(), 'makerd-prometheus-'));
    const token = join(dir, 'token');
    writeFileSync(token, 'test-token');
    const config = readYaml<PromConfig>(CONFIG);
    for (const job of config.scrape_configs ?? []) {
      if (job.authorization?.credentials_file !== undefined) {
        job.authorization.credentials_file = token;
      }
    }
    config.rule_files = (config.rule_files ?? []).map((f) => join(DIR, f));
    const copy = join(dir, 'prometheus.yml');
    writeFileSync(copy, stringify(config));
    const full = await promtool(['check', 'config', '--lint-fatal', copy]);
    assertSuccess(full, 'check config (full)');
    assert.match(full.stdout, /SUCCESS: 1 rule files found/);
  });

  it('promtool accepts alerts.yml, duplicate-rule lint included', async (t) => {
    if (!(await havePromtool(t))) return;
    const run = await promtool(['check', 'rules', '--lint-fatal', ALERTS]);
    assertSuccess(run, 'check rules');
    assert.match(run.stdout, new RegExp(`SUCCESS: ${alertRules().length} rules found`));
  });

  it('passes the promtool unit tests of alerts.test.yml', async (t) => {
    if (!(await havePromtool(t))) return;
    assertSuccess(await promtool(['test', 'rules', ALERT_TESTS]), 'test rules');
  });

  it('scrapes makerd:9464/metrics every 5 s and Prometheus itself, and loads alerts.yml', () => {
    const config = readYaml<PromConfig>(CONFIG);
    assert.deepEqual(
      config.rule_files,
      ['alerts.yml'],
      'relative: works in the container and here',
    );
    const jobs = new Map((config.scrape_configs ?? []).map((j) => [j.job_name, j]));
    const makerd = jobs.get('makerd');
    assert.ok(makerd, 'a makerd job');
    assert.equal(makerd.scrape_interval, '5s');
    assert.equal(makerd.metrics_path, '/metrics');
    assert.deepEqual(
      makerd.static_configs?.flatMap((s) => s.targets),
      ['makerd:9464'],
    );
    assert.ok(makerd.authorization?.credentials_file, 'the bearer token of a non-loopback makerd');
    assert.ok(jobs.has('prometheus'), 'Prometheus scrapes itself');
  });

  it('has every alert issue #7 lists, each with a for, a severity and a summary and description', () => {
    const rules = alertRules();
    const names = new Set(rules.map((r) => r.alert));
    for (const name of REQUIRED) assert.ok(names.has(name), `${name} in alerts.yml`);
    for (const rule of rules) {
      const name = rule.alert as string;
      assert.match(rule.for ?? '', /^\d+[smh]$/, `${name}: for`);
      assert.match(rule.labels?.severity ?? '', /^(page|warn)$/, `${name}: severity`);
      assert.ok(rule.annotations?.summary, `${name}: summary`);
      assert.ok(rule.annotations?.description, `${name}: description`);
    }
  });

  it('names only metric families makerd registers (or up)', () => {
    const families = registeredFamilies();
    assert.ok(families.has('makerd_halted'), 'the source scan finds the families');
    for (const rule of alertRules()) {
      for (const [metric] of rule.expr.matchAll(/\bmakerd_[a-z0-9_]+/g)) {
        const family = metric.replace(/_(bucket|sum|count)$/, '');
        assert.ok(
          families.has(metric) || families.has(family),
          `${rule.alert}: ${metric} is not registered in src/`,
        );
      }
    }
  });

  it('has for every alert a case where it fires and one where it stays silent', () => {
    const suite = readYaml<RuleTests>(ALERT_TESTS);
    assert.deepEqual(suite.rule_files, ['alerts.yml']);
    const cases = suite.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const name of new Set(alertRules().map((r) => r.alert as string))) {
      const own = cases.filter((c) => c.alertname === name);
      assert.ok(
        own.some((c) => (c.exp_alerts ?? []).length > 0),
        `${name} fires in alerts.test.yml`,
      );
      assert.ok(
        own.some((c) => (c.exp_alerts ?? []).length === 0),
        `${name} stays silent in alerts.test.yml`,
      );
    }
  });
});
