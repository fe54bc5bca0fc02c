/**
 * Alert delivery in the compose stack: config/alertmanager/alertmanager.yml (routing, inhibition)
 * and the one-shot that adds the receivers of `.env` (config/compose/alertmanager-config.js), run
 * as the stack runs it but on a temporary folder. `amtool check-config` (Debian's
 * prometheus-alertmanager, 0.25) checks the shipped file and every rendered variant.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it, type TestContext } from 'node:test';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BASE = join(ROOT, 'config/alertmanager/alertmanager.yml');
const SCRIPT = join(ROOT, 'config/compose/alertmanager-config.js');
const MISSING =
  "amtool is not installed: install Debian's prometheus-alertmanager package " +
  '(apt-get install prometheus-alertmanager)';

const WEBHOOK_URL = 'https://hooks.example.com/makerd?token=hook-s3cret';
const BOT_TOKEN = '123456:bot-s3cret';
const SMTP_PASSWORD = 'smtp-s3cret';
const SECRETS = [WEBHOOK_URL, BOT_TOKEN, SMTP_PASSWORD];
const TELEGRAM = { ALERT_TELEGRAM_CHAT_ID: '-1001234567890' };
const EMAIL = {
  ALERT_EMAIL_TO: 'ops@example.com',
  ALERT_EMAIL_FROM: 'makerd@example.com',
  ALERT_SMTP_SMARTHOST: 'smtp.example.com:587',
  ALERT_SMTP_USERNAME: 'makerd',
};

interface Receiver {
  name: string;
  webhook_configs?: { url: string; send_resolved: boolean }[];
  telegram_configs?: { bot_token: string; chat_id: number; send_resolved: boolean }[];
  email_configs?: Record<string, unknown>[];
}
interface AlertmanagerConfig {
  route: {
    receiver: string;
    group_by: string[];
    group_wait: string;
    repeat_interval: string;
    routes?: { matchers: string[]; repeat_interval?: string }[];
  };
  inhibit_rules: { source_matchers: string[]; target_matchers: string[]; equal: string[] }[];
  receivers: Receiver[];
}

const dir = mkdtempSync(join(tmpdir(), 'makerd-alertmanager-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Rendered {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly file: string;
}

let runs = 0;
/** The one-shot with these .env values and secret files (name → content), on fresh paths. */
function render(env: Record<string, string>, secrets: Record<string, string> = {}): Rendered {
  const run = join(dir, String(++runs));
  const secretDir = join(run, 'secrets');
  mkdirSync(secretDir, { recursive: true });
  for (const [name, content] of Object.entries(secrets)) {
    writeFileSync(join(secretDir, name), `${content}\n`);
  }
  const file = join(run, 'alertmanager.yml');
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('ALERT_')),
  );
  const r = spawnSync(process.execPath, [SCRIPT, BASE, file, secretDir], {
    encoding: 'utf8',
    env: { ...clean, ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, file };
}

function rendered(env: Record<string, string>, secrets: Record<string, string> = {}) {
  const r = render(env, secrets);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  const config = parse(readFileSync(r.file, 'utf8')) as AlertmanagerConfig;
  const operator = config.receivers.find((x) => x.name === 'operator');
  assert.ok(operator);
  return { ...r, config, operator };
}

/** The one line the one-shot prints when it refuses, exit 1, no secret in it. */
function refusal(env: Record<string, string>, secrets: Record<string, string> = {}): string {
  const r = render(env, secrets);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /^alertmanager-config: [^\n]+\n$/);
  for (const s of SECRETS) assert.ok(!r.stderr.includes(s), `a secret in: ${r.stderr}`);
  return r.stderr.trim();
}

let found: Promise<boolean> | undefined;
async function haveAmtool(t: TestContext): Promise<boolean> {
  found ??= new Promise((resolve) => {
    execFile('amtool', ['--version'], (err) => resolve(err?.code !== 'ENOENT'));
  });
  if (await found) return true;
  if (process.env.MAKERD_REQUIRE_TOOLS === '1') {
    assert.fail(`${MISSING}; MAKERD_REQUIRE_TOOLS=1 does not allow skipping`);
  }
  t.skip(MISSING);
  return false;
}

function checkConfig(file: string): Promise<string> {
  return new Promise((resolve) => {
    execFile('amtool', ['check-config', file], (err, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      assert.equal(err, null, `amtool check-config ${file}:\n${output}`);
      resolve(output);
    });
  });
}

const ALL_SECRETS = {
  alert_webhook_url: WEBHOOK_URL,
  alert_telegram_bot_token: BOT_TOKEN,
  alert_smtp_password: SMTP_PASSWORD,
};

describe('Alertmanager configuration (config/alertmanager, config/compose/alertmanager-config.js)', () => {
  it('amtool accepts the shipped routing and every receiver rendered alone and together', async (t) => {
    if (!(await haveAmtool(t))) return;
    const variants = [
      BASE,
      rendered({}).file,
      rendered({}, { alert_webhook_url: WEBHOOK_URL }).file,
      rendered(TELEGRAM, { alert_telegram_bot_token: BOT_TOKEN }).file,
      rendered(EMAIL, { alert_smtp_password: SMTP_PASSWORD }).file,
      rendered({ ...EMAIL, ALERT_SMTP_USERNAME: '' }).file,
      rendered({ ...TELEGRAM, ...EMAIL }, ALL_SECRETS).file,
    ];
    for (const file of variants) {
      const output = await checkConfig(file);
      assert.match(output, /SUCCESS/);
      assert.match(output, / - 1 inhibit rules\n - 1 receivers\n/);
    }
    t.diagnostic(`amtool check-config: SUCCESS for ${variants.length} files`);
  });

  it('with nothing set: one receiver without integrations, nothing sent', () => {
    const { operator, config, stdout } = rendered({});
    assert.deepEqual(operator, { name: 'operator' });
    assert.equal(config.route.receiver, 'operator');
    assert.equal(
      stdout,
      'alertmanager-config: receiver operator: none set (alerts only in the UI, nothing sent)\n',
    );
  });

  it('adds webhook, Telegram and e-mail from .env and the secret files, printing no secret', () => {
    const { operator, stdout, file } = rendered({ ...TELEGRAM, ...EMAIL }, ALL_SECRETS);
    assert.deepEqual(operator.webhook_configs, [{ url: WEBHOOK_URL, send_resolved: true }]);
    assert.deepEqual(operator.telegram_configs, [
      { bot_token: BOT_TOKEN, chat_id: -1001234567890, send_resolved: true },
    ]);
    assert.deepEqual(operator.email_configs, [
      {
        to: 'ops@example.com',
        from: 'makerd@example.com',
        smarthost: 'smtp.example.com:587',
        auth_username: 'makerd',
        auth_password: SMTP_PASSWORD,
        send_resolved: true,
      },
    ]);
    assert.equal(stdout, 'alertmanager-config: receiver operator: webhook, telegram, email\n');
    assert.match(readFileSync(file, 'utf8'), /^# Written by config\/compose\/alertmanager-config/);
  });

  it('refuses a half-set receiver in one line naming the variable', () => {
    assert.equal(
      refusal({}, { alert_telegram_bot_token: BOT_TOKEN }),
      'alertmanager-config: ALERT_TELEGRAM_CHAT_ID is not set but ' +
        'ALERT_TELEGRAM_BOT_TOKEN_FILE is: set both or neither',
    );
    assert.equal(
      refusal({ ALERT_TELEGRAM_CHAT_ID: '@makerd_ops' }, { alert_telegram_bot_token: BOT_TOKEN }),
      'alertmanager-config: ALERT_TELEGRAM_CHAT_ID: "@makerd_ops" is not a Telegram chat ID ' +
        '(an integer)',
    );
    assert.equal(
      refusal({}, { alert_webhook_url: 'hooks.example.com/makerd?token=hook-s3cret' }),
      'alertmanager-config: ALERT_WEBHOOK_URL_FILE: the file does not hold one http(s) URL',
    );
    assert.equal(
      refusal({ ...EMAIL, ALERT_SMTP_SMARTHOST: '' }, { alert_smtp_password: SMTP_PASSWORD }),
      'alertmanager-config: ALERT_SMTP_SMARTHOST is not set but ALERT_EMAIL_TO is: e-mail needs it',
    );
    assert.equal(
      refusal({ ...EMAIL, ALERT_SMTP_SMARTHOST: 'smtp.example.com' }),
      'alertmanager-config: ALERT_SMTP_SMARTHOST: "smtp.example.com" is not host:port ' +
        '(e.g. smtp.example.com:587)',
    );
    assert.equal(
      refusal(EMAIL),
      'alertmanager-config: ALERT_SMTP_PASSWORD_FILE is not set but ALERT_SMTP_USERNAME is: ' +
        'set both or neither',
    );
    assert.equal(
      refusal({ ALERT_EMAIL_FROM: 'makerd@example.com' }),
      'alertmanager-config: ALERT_EMAIL_TO is not set but ALERT_EMAIL_FROM is: set it, or ' +
        'unset the e-mail settings',
    );
  });

  it('says what to do with a secret file it cannot read', () => {
    // Tests may run as root, whom file modes do not stop: a folder cannot be read as a file.
    const run = join(dir, 'unreadable');
    mkdirSync(join(run, 'alert_webhook_url'), { recursive: true });
    const r = spawnSync(process.execPath, [SCRIPT, BASE, join(run, 'out.yml'), run], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr,
      `alertmanager-config: ALERT_WEBHOOK_URL_FILE: cannot read the secret ${run}/alert_webhook_url ` +
        '(EISDIR): make the file readable by the container user (uid 1000), e.g. chmod 644\n',
    );
  });

  it('inhibits only alerts that exist in alerts.yml, and pages are repeated sooner', () => {
    const config = parse(readFileSync(BASE, 'utf8')) as AlertmanagerConfig;
    const rules = parse(readFileSync(join(ROOT, 'config/prometheus/alerts.yml'), 'utf8')) as {
      groups: { rules: { alert?: string }[] }[];
    };
    const alerts = new Set(rules.groups.flatMap((g) => g.rules.map((r) => r.alert)));
    const [rule] = config.inhibit_rules;
    assert.ok(rule);
    const names = (matchers: string[]): string[] =>
      matchers.flatMap((m) => /^alertname=~"(.*)"$/.exec(m)?.[1]?.split('|') ?? []);
    const sources = names(rule.source_matchers);
    const targets = names(rule.target_matchers);
    assert.deepEqual(sources, ['MakerdHalted', 'MakerdExchangeEmergency']);
    assert.ok(targets.includes('MakerdStaleData') && targets.includes('MakerdQueueBacklog'));
    for (const name of [...sources, ...targets])
      assert.ok(alerts.has(name), `${name} in alerts.yml`);
    for (const safety of ['MakerdHeartbeatStale', 'MakerdSupervisorCancelAllFailed']) {
      assert.ok(!targets.includes(safety), `${safety} must page during a halt`);
    }
    assert.deepEqual(config.route.group_by, ['alertname', 'job', 'instance']);
    assert.deepEqual(config.route.routes, [
      { matchers: ['severity="page"'], repeat_interval: '1h' },
    ]);
  });

  it('is what the compose stack runs, and Prometheus sends to it', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<
        string,
        { image?: string; command?: string[]; ports?: string[]; volumes?: string[] }
      >;
    };
    const oneShot = compose.services['alertmanager-config'];
    assert.deepEqual(oneShot?.command, ['node', 'config/compose/alertmanager-config.js']);
    assert.ok(oneShot?.volumes?.includes('./config/alertmanager:/etc/alertmanager:ro'));
    const am = compose.services.alertmanager;
    assert.equal(am?.image, 'prom/alertmanager:v0.28.1');
    assert.deepEqual(am?.ports, ['127.0.0.1:${ALERTMANAGER_PORT:-9093}:9093']);
    assert.ok(am?.command?.includes('--config.file=/run/alertmanager/alertmanager.yml'));
    const prometheus = parse(
      readFileSync(join(ROOT, 'config/prometheus/prometheus.yml'), 'utf8'),
    ) as { alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] } };
    assert.deepEqual(
      prometheus.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((s) => s.targets)),
      ['alertmanager:9093'],
    );
  });
});
