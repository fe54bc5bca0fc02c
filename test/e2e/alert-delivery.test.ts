/**
 * Issue #32's alert delivery, end to end with Debian's prometheus and prometheus-alertmanager:
 * Prometheus scrapes two fake makerd deployments (jobs `makerd` and `makerd-b`) with the rules of
 * config/prometheus/alerts.yml, and sends to an Alertmanager configured as the compose stack
 * configures it (config/alertmanager/alertmanager.yml rendered by the one-shot with a webhook URL
 * in a secret file). A local HTTP server is the webhook.
 *
 * Rules with `for: 0s`, so no rule file is templated: MakerdUnknownOutcomes fires on both jobs,
 * MakerdExchangeEmergency (an inhibition source) on `makerd` only. `makerd-b`'s alert delivered
 * shows the pipeline works and when; `makerd`'s stays inhibited. MakerdHalted waits 30 s, so
 * the halt case posts its alerts to Alertmanager's API directly (a split deployment: the halt on
 * the supervisor's instance, stale data on the runner's, a backlog with no instance).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { freePort } from '../../src/core/free-port.js';
import { until } from '../support/until.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'hook-token-e2e';
const MISSING =
  "prometheus or alertmanager is not installed: install Debian's prometheus and " +
  'prometheus-alertmanager packages';

/** Debian names the binary prometheus-alertmanager; upstream builds name it alertmanager. */
const ALERTMANAGER = ['prometheus-alertmanager', 'alertmanager'].find(
  (bin) => spawnSync(bin, ['--version']).error === undefined,
);
const HAVE_PROMETHEUS = spawnSync('prometheus', ['--version']).error === undefined;
const skip =
  ALERTMANAGER !== undefined && HAVE_PROMETHEUS
    ? false
    : process.env.MAKERD_REQUIRE_TOOLS === '1'
      ? false
      : MISSING;

interface Alert {
  status: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface Notification {
  url: string;
  body: { receiver: string; status: string; alerts: Alert[] };
}
interface ApiAlert {
  labels: Record<string, string>;
  fingerprint: string;
  status: { state: string; inhibitedBy: string[] };
}

const children: ChildProcess[] = [];
const servers: Server[] = [];
const notifications: Notification[] = [];
let dir = '';
let amUrl = '';
const targets: Record<string, string> = {};

function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** A makerd /metrics of these exposition lines. */
function fakeMakerd(lines: string[]): Promise<number> {
  return serve((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(`${lines.join('\n')}\n`);
  });
}

function start(bin: string, args: string[]): ChildProcess {
  const child = spawn(bin, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => void (stderr = (stderr + String(d)).slice(-4000)));
  child.on('exit', (code) => {
    if (code !== null && code !== 0) console.error(`${bin} exited ${code}:\n${stderr}`);
  });
  children.push(child);
  return child;
}

/** Notified alerts, as "alertname job" for the firing ones. */
const delivered = (): string[] =>
  notifications.flatMap((n) =>
    n.body.alerts
      .filter((a) => a.status === 'firing')
      .map((a) => `${a.labels.alertname} ${a.labels.job}`),
  );

/** Alertmanager's view of the alerts matching every matcher, silenced and inhibited included. */
async function apiAlerts(...matchers: string[]): Promise<ApiAlert[]> {
  const query = matchers.map((m) => `filter=${encodeURIComponent(m)}`).join('&');
  const res = await fetch(`${amUrl}/api/v2/alerts?${query}`);
  assert.equal(res.status, 200);
  return (await res.json()) as ApiAlert[];
}

const UNKNOWN_OUTCOMES = [
  '# TYPE makerd_order_actions_total counter',
  'makerd_order_actions_total{pair="XBTUSD",action="AddOrder",outcome="unknown"} 3',
];

describe('end to end: a firing rule reaches the operator through Alertmanager', { skip }, () => {
  let started = 0;

  before(async () => {
    if (ALERTMANAGER === undefined || !HAVE_PROMETHEUS) {
      assert.fail(`${MISSING}; MAKERD_REQUIRE_TOOLS=1 does not allow skipping`);
    }
    started = Date.now();
    dir = mkdtempSync(join(tmpdir(), 'makerd-alerts-e2e-'));
    const hookPort = await serve((req, res) => {
      let text = '';
      req.on('data', (d: Buffer) => (text += String(d)));
      req.on('end', () => {
        notifications.push({ url: req.url ?? '', body: JSON.parse(text) as Notification['body'] });
        res.end();
      });
    });
    targets.makerd = `127.0.0.1:${await fakeMakerd([
      '# TYPE makerd_exchange_emergency gauge',
      'makerd_exchange_emergency 1',
      ...UNKNOWN_OUTCOMES,
    ])}`;
    targets['makerd-b'] = `127.0.0.1:${await fakeMakerd(UNKNOWN_OUTCOMES)}`;

    // Alertmanager's config as the stack's one-shot writes it, the webhook URL a secret file.
    const secrets = join(dir, 'secrets');
    mkdirSync(secrets);
    writeFileSync(
      join(secrets, 'alert_webhook_url'),
      `http://127.0.0.1:${hookPort}/alerts?token=${TOKEN}\n`,
    );
    const render = spawnSync(
      process.execPath,
      [
        join(ROOT, 'config/compose/alertmanager-config.js'),
        join(ROOT, 'config/alertmanager/alertmanager.yml'),
        join(dir, 'alertmanager.yml'),
        secrets,
      ],
      { encoding: 'utf8' },
    );
    assert.equal(render.status, 0, render.stderr);

    const [amPort, promPort] = [await freePort(), await freePort()];
    amUrl = `http://127.0.0.1:${amPort}`;
    start(ALERTMANAGER, [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'am-data')}`,
      `--web.listen-address=127.0.0.1:${amPort}`,
      '--cluster.listen-address=',
    ]);
    // A test copy of prometheus.yml: the repository's rules, every second, these targets.
    writeFileSync(
      join(dir, 'prometheus.yml'),
      stringify({
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(ROOT, 'config/prometheus/alerts.yml')],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
        scrape_configs: Object.entries(targets).map(([job, target]) => ({
          job_name: job,
          static_configs: [{ targets: [target] }],
        })),
      }),
    );
    start('prometheus', [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'prom-data')}`,
      `--web.listen-address=127.0.0.1:${promPort}`,
    ]);
    await until(
      'Alertmanager ready',
      async () => (await fetch(`${amUrl}/-/ready`).catch(() => undefined))?.ok,
      20_000,
      100,
    );
  });

  after(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
    }
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a halt holds back the alerts it causes in the same deployment, not the safety ones', async (t) => {
    // Posted as Prometheus posts them. makerd-c: another deployment, not halted.
    const alert = (labels: Record<string, string>) => ({ labels, annotations: {} });
    const posted = await fetch(`${amUrl}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        alert({ alertname: 'MakerdHalted', severity: 'page', job: 'split', instance: 'sup:9464' }),
        alert({
          alertname: 'MakerdStaleData',
          severity: 'warn',
          job: 'split',
          instance: 'runner:9464',
          pair: 'XBTUSD',
        }),
        alert({ alertname: 'MakerdQueueBacklog', severity: 'warn', job: 'split', pair: 'XBTUSD' }),
        alert({
          alertname: 'MakerdHeartbeatStale',
          severity: 'page',
          job: 'split',
          instance: 'sup:9464',
        }),
        alert({
          alertname: 'MakerdStaleData',
          severity: 'warn',
          job: 'makerd-c',
          instance: 'makerd-c:9464',
          pair: 'XBTUSD',
        }),
      ]),
    });
    assert.equal(posted.status, 200);

    const alerts = await apiAlerts('job=~"split|makerd-c"');
    const state = (name: string, job: string): ApiAlert | undefined =>
      alerts.find((a) => a.labels.alertname === name && a.labels.job === job);
    const halted = state('MakerdHalted', 'split');
    assert.equal(halted?.status.state, 'active');
    for (const caused of ['MakerdStaleData', 'MakerdQueueBacklog']) {
      assert.deepEqual(state(caused, 'split')?.status, {
        state: 'suppressed',
        inhibitedBy: [halted.fingerprint],
        silencedBy: [],
      });
    }
    assert.equal(state('MakerdHeartbeatStale', 'split')?.status.state, 'active');
    assert.equal(state('MakerdStaleData', 'makerd-c')?.status.state, 'active');

    // Delivered: what was active; the caused ones never.
    await until(
      'the halt-case notifications',
      () =>
        ['MakerdHalted split', 'MakerdHeartbeatStale split', 'MakerdStaleData makerd-c'].every(
          (a) => delivered().includes(a),
        ),
      40_000,
      100,
    );
    t.diagnostic(`halt case delivered after ${Date.now() - started} ms`);
  });

  it('MakerdUnknownOutcomes from alerts.yml reaches the webhook with its labels; the emergency inhibits it on its job', async (t) => {
    await until(
      'both jobs notified',
      () =>
        delivered().includes('MakerdUnknownOutcomes makerd-b') &&
        delivered().includes('MakerdExchangeEmergency makerd'),
      45_000,
      100,
    );
    t.diagnostic(`rule to webhook after ${Date.now() - started} ms since start`);
    const notification = notifications.find((n) =>
      n.body.alerts.some((a) => a.labels.alertname === 'MakerdUnknownOutcomes'),
    );
    assert.ok(notification);
    assert.equal(notification.url, `/alerts?token=${TOKEN}`, 'the URL of the secret file');
    assert.equal(notification.body.receiver, 'operator');
    const [firing] = notification.body.alerts;
    assert.deepEqual(firing?.labels, {
      alertname: 'MakerdUnknownOutcomes',
      severity: 'warn',
      job: 'makerd-b',
      instance: targets['makerd-b'],
      pair: 'XBTUSD',
    });
    assert.equal(firing?.annotations.summary, 'XBTUSD: order-entry calls without an answer');

    const emergency = (await apiAlerts('alertname="MakerdExchangeEmergency"'))[0];
    const unknown = await apiAlerts('alertname="MakerdUnknownOutcomes"', 'job="makerd"');
    assert.deepEqual(unknown[0]?.status, {
      state: 'suppressed',
      inhibitedBy: [emergency?.fingerprint],
      silencedBy: [],
    });

    // Every notification Alertmanager counted was received, and none names an inhibited alert.
    const metrics = await (await fetch(`${amUrl}/metrics`)).text();
    const sent = [
      ...metrics.matchAll(
        /^alertmanager_notifications_total\{[^}]*integration="webhook"[^}]*\} (\d+)$/gm,
      ),
    ].reduce((n, m) => n + Number(m[1]), 0);
    assert.equal(sent, notifications.length, delivered().join(', '));
    const inhibited = [
      'MakerdUnknownOutcomes makerd',
      'MakerdStaleData split',
      'MakerdQueueBacklog split',
    ];
    assert.deepEqual(
      delivered().filter((a) => inhibited.includes(a)),
      [],
    );
  });
});
