/**
 * docker-compose.yml and the Dockerfile, checked without a Docker engine: `docker-compose config`
 * (Debian's docker-compose package, 1.29) validates and normalizes the file, and the assertions
 * hold the deployment's safety properties (durable Redis, secrets, loopback-only ports, paper by
 * default, a non-root image under an init process).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const DOCKERFILE = join(ROOT, 'Dockerfile');
const INSTALL_HINT = "docker-compose not found: install Debian's docker-compose package";

interface Service {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: string | readonly string[];
  readonly depends_on?: Record<string, { readonly condition?: string }> | readonly string[];
  readonly environment?: Record<string, string | null>;
  readonly healthcheck?: { readonly test?: string | readonly string[]; readonly disable?: boolean };
  readonly ports?: readonly (
    string | { readonly host_ip?: string; readonly published?: unknown }
  )[];
  readonly profiles?: readonly string[];
  readonly secrets?: readonly (string | { readonly source: string })[];
  readonly volumes?: readonly (string | { readonly source?: string; readonly target: string })[];
  readonly stop_grace_period?: string;
}
interface ComposeConfig {
  readonly services: Record<string, Service>;
  readonly secrets?: Record<string, { readonly file?: string }>;
}

async function composeAvailable(): Promise<boolean> {
  try {
    await run('docker-compose', ['version']);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

const available = await composeAvailable();
const required = process.env.MAKERD_REQUIRE_TOOLS === '1';
const skip = available || required ? false : INSTALL_HINT;

// The developer's .env and shell (MAKERD_CONFIG, secret paths) must not change what is checked:
// an empty env file and an environment without the file's variables give the defaults.
const dir = mkdtempSync(join(tmpdir(), 'makerd-compose-'));
const envFile = join(dir, 'empty.env');
writeFileSync(envFile, '');
after(() => rmSync(dir, { recursive: true, force: true }));
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(MAKERD_|GRAFANA_|COMPOSE_|ALERT)/.test(k)),
);

const configs = new Map<string, Promise<ComposeConfig>>();

/** `docker-compose config`, normalized (paths absolute, variables substituted), once per profile. */
function composeConfig(...profileArgs: string[]): Promise<ComposeConfig> {
  const key = profileArgs.join(' ');
  let config = configs.get(key);
  if (config === undefined) {
    config = loadComposeConfig(envFile, profileArgs);
    configs.set(key, config);
  }
  return config;
}

/** `docker-compose config` with these variables in the `.env` file, as an operator sets them. */
function composeConfigWithEnv(vars: Record<string, string>): Promise<ComposeConfig> {
  const file = join(dir, `${Object.keys(vars).join('-')}.env`);
  writeFileSync(
    file,
    Object.entries(vars)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  return loadComposeConfig(file, ['--profile', 'paper']);
}

async function loadComposeConfig(env: string, profileArgs: string[]): Promise<ComposeConfig> {
  if (!available) assert.fail(INSTALL_HINT);
  const { stdout } = await run(
    'docker-compose',
    ['-f', COMPOSE_FILE, '--env-file', env, ...profileArgs, 'config'],
    { cwd: ROOT, env: cleanEnv },
  );
  return parse(stdout) as ComposeConfig;
}

const words = (cmd: string | readonly string[] | undefined): string =>
  typeof cmd === 'string' ? cmd : (cmd ?? []).join(' ');
const names = (list: Service['secrets']): string[] =>
  (list ?? []).map((s) => (typeof s === 'string' ? s : s.source));

function service(config: ComposeConfig, name: string): Service {
  const s = config.services[name];
  assert.ok(s, `no service ${name}`);
  return s;
}

type Port = NonNullable<Service['ports']>[number];

/** Host addresses a port entry publishes on: short syntax `[ip:]host:container`, or long syntax. */
function hostIp(port: Port): string {
  if (typeof port !== 'string') return port.host_ip ?? '0.0.0.0';
  const spec = port.replace(/\/(tcp|udp|sctp)$/, '');
  const bracketed = /^\[([^\]]+)\]:/.exec(spec);
  if (bracketed) return bracketed[1] as string;
  const parts = spec.split(':');
  return parts.length >= 3 ? (parts[0] as string) : '0.0.0.0';
}

/** `ip:host port` of a service's one published port: compose 1.29 short syntax, v2 long syntax. */
function published(s: Service): string {
  assert.equal(s.ports?.length, 1, `expected one published port: ${JSON.stringify(s.ports)}`);
  const port = s.ports[0] as Port;
  const hostPort =
    typeof port === 'string'
      ? port
          .replace(/\/(tcp|udp|sctp)$/, '')
          .split(':')
          .at(-2)
      : String(port.published);
  return `${hostIp(port)}:${hostPort}`;
}

describe('docker-compose.yml', { skip }, () => {
  it('validates, with and without the paper profile', async () => {
    const plain = await composeConfig();
    const paper = await composeConfig('--profile', 'paper');
    for (const name of ['redis', 'makerd', 'prometheus', 'alertmanager', 'grafana']) {
      service(plain, name);
      service(paper, name);
    }
  });

  it('runs Redis with AOF, noeviction and a health check', async () => {
    const redis = service(await composeConfig(), 'redis');
    const cmd = words(redis.command);
    assert.match(cmd, /--appendonly yes\b/);
    assert.match(cmd, /--maxmemory-policy noeviction\b/);
    const test = words(redis.healthcheck?.test);
    assert.match(test, /redis-cli ping/);
    assert.ok(!/^NONE/.test(test), 'the health check is disabled');
  });

  it('starts makerd after a healthy Redis, with the API key and secret as Docker secrets', async () => {
    const config = await composeConfig();
    const makerd = service(config, 'makerd');
    const deps = makerd.depends_on;
    assert.ok(deps && !Array.isArray(deps), 'depends_on must use the long form with a condition');
    assert.equal(
      (deps as Record<string, { condition?: string }>).redis?.condition,
      'service_healthy',
    );
    assert.ok(!('sim' in deps), 'makerd must not depend on sim: a live deployment has none');
    const secrets = names(makerd.secrets);
    assert.ok(secrets.includes('makerd_api_key') && secrets.includes('makerd_api_secret'));
    for (const s of secrets) {
      const file = config.secrets?.[s]?.file;
      assert.ok(
        file !== undefined && existsSync(file),
        `secret ${s}: default file ${file} missing`,
      );
    }
    const env = makerd.environment ?? {};
    assert.equal(env.MAKERD_API_KEY_FILE, '/run/secrets/makerd_api_key');
    assert.equal(env.MAKERD_API_SECRET_FILE, '/run/secrets/makerd_api_secret');
    assert.ok(!('MAKERD_EXCHANGE_URL' in env), 'an exchange override would redirect a live config');
    assert.ok((makerd.stop_grace_period ?? '').length > 0, 'shutdown needs time to cancel orders');
  });

  it('gives Prometheus the read token only, makerd both', async () => {
    const config = await composeConfig();
    const targets = (s: Service): Map<string, string | undefined> =>
      new Map(
        (s.volumes ?? []).map((v) =>
          typeof v === 'string' ? [v.split(':')[1] ?? '', v.split(':')[0]] : [v.target, v.source],
        ),
      );
    const makerd = service(config, 'makerd');
    const env = makerd.environment ?? {};
    assert.equal(env.MAKERD_HTTP_TOKEN_FILE, '/run/makerd/http-token');
    assert.equal(env.MAKERD_HTTP_READ_TOKEN_FILE, '/run/makerd-read/read-token');
    assert.equal(targets(makerd).get('/run/makerd'), 'http-token');
    assert.equal(targets(makerd).get('/run/makerd-read'), 'read-token');
    const prometheus = targets(service(config, 'prometheus'));
    assert.equal(prometheus.get('/run/makerd-read'), 'read-token');
    assert.ok(
      ![...prometheus.values()].includes('http-token'),
      'Prometheus must not see the control token',
    );
    const prom = parse(readFileSync(join(ROOT, 'config/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; authorization?: { credentials_file?: string } }[];
    };
    const job = prom.scrape_configs.find((j) => j.job_name === 'makerd');
    assert.equal(job?.authorization?.credentials_file, '/run/makerd-read/read-token');
    assert.deepEqual(names(service(config, 'http-token').secrets).sort(), [
      'makerd_http_read_token',
      'makerd_http_token',
    ]);
  });

  it('runs the paper config by default, mounted where the command reads it', async () => {
    const makerd = service(await composeConfig(), 'makerd');
    const cmd = typeof makerd.command === 'string' ? makerd.command.split(' ') : makerd.command;
    const target = cmd?.[cmd.indexOf('--config') + 1];
    assert.ok(target !== undefined, 'makerd command has no --config');
    const mount = (makerd.volumes ?? [])
      .map((v) =>
        typeof v === 'string' ? { source: v.split(':')[0], target: v.split(':')[1] } : v,
      )
      .find((v) => v.target === target);
    const source = mount?.source;
    assert.equal(source, join(ROOT, 'config/compose/makerd.paper.yaml'));
    const paper = parse(readFileSync(source, 'utf8')) as {
      exchange: { url: string; credentials: { from: string } };
    };
    assert.equal(new URL(paper.exchange.url).hostname, 'sim');
    assert.equal(paper.exchange.credentials.from, 'simulator');
  });

  it('has the simulator only under the paper profile', async () => {
    const plain = await composeConfig();
    const paper = await composeConfig('--profile', 'paper');
    assert.deepEqual(service(paper, 'sim').profiles, ['paper']);
    // Compose v2 drops inactive profiles' services; 1.29 keeps them, with their profiles.
    const inactive = plain.services.sim;
    if (inactive !== undefined) assert.deepEqual(inactive.profiles, ['paper']);
    for (const [name, s] of Object.entries(paper.services)) {
      if (name !== 'sim') assert.equal(s.profiles, undefined, `${name} must run in every profile`);
    }
  });

  it('runs every service built from the Dockerfile on one image, MAKERD_IMAGE', async () => {
    const built = (config: ComposeConfig): Record<string, string | undefined> =>
      Object.fromEntries(
        Object.entries(config.services)
          .filter(([, s]) => s.build !== undefined)
          .map(([name, s]) => [name, s.image]),
      );
    const local = 'makerd:local';
    assert.deepEqual(built(await composeConfig('--profile', 'paper')), {
      'http-token': local,
      'alertmanager-config': local,
      makerd: local,
      sim: local,
    });
    const tagged = 'registry.example/makerd:1.2.3';
    assert.deepEqual(built(await composeConfigWithEnv({ MAKERD_IMAGE: tagged })), {
      'http-token': tagged,
      'alertmanager-config': tagged,
      makerd: tagged,
      sim: tagged,
    });
  });

  it('publishes makerd, Prometheus and Grafana on the ports .env names, on loopback', async () => {
    const defaults = await composeConfig('--profile', 'paper');
    assert.equal(published(service(defaults, 'makerd')), '127.0.0.1:9464');
    assert.equal(published(service(defaults, 'prometheus')), '127.0.0.1:9090');
    assert.equal(published(service(defaults, 'grafana')), '127.0.0.1:3000');
    const moved = await composeConfigWithEnv({
      MAKERD_PORT: '19464',
      PROMETHEUS_PORT: '19090',
      GRAFANA_PORT: '13000',
    });
    assert.equal(published(service(moved, 'makerd')), '127.0.0.1:19464');
    assert.equal(published(service(moved, 'prometheus')), '127.0.0.1:19090');
    assert.equal(published(service(moved, 'grafana')), '127.0.0.1:13000');
  });

  it('publishes ports on loopback only', async () => {
    const config = await composeConfig('--profile', 'paper');
    for (const [name, s] of Object.entries(config.services)) {
      for (const port of s.ports ?? []) {
        const ip = hostIp(port);
        assert.ok(
          ip === '127.0.0.1' || ip === '::1',
          `${name} publishes ${JSON.stringify(port)} on ${ip}: bind it to 127.0.0.1`,
        );
      }
    }
  });
});

describe('config/compose/makerd.paper.yaml', () => {
  it('keeps the compose paper config trading what config/paper.yaml trades', () => {
    const read = (file: string): Record<string, unknown> =>
      parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, unknown>;
    const compose = read('config/compose/makerd.paper.yaml');
    const paper = read('config/paper.yaml');
    for (const key of ['instance', 'pairs', 'market', 'runner', 'executor', 'supervisor']) {
      assert.deepEqual(compose[key], paper[key], `${key} differs from config/paper.yaml`);
    }
  });
});

/** Dockerfile instructions: comments dropped, continuation lines joined. */
function instructions(text: string): { op: string; args: string }[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const [op = '', ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

describe('Dockerfile', () => {
  const steps = instructions(readFileSync(DOCKERFILE, 'utf8'));
  const all = (op: string): string[] => steps.filter((s) => s.op === op).map((s) => s.args);
  const last = (op: string): string | undefined => all(op).at(-1);

  it('is multi-stage', () => {
    assert.ok(all('FROM').length >= 2, 'expected a build stage and a runtime stage');
  });

  it('runs as a user that is not root', () => {
    const user = last('USER');
    assert.ok(user !== undefined, 'no USER: the image would run as root');
    assert.ok(!/^(root|0)(:|$)/.test(user), `USER ${user} is root`);
  });

  it('runs node under tini, in exec form', () => {
    const entrypoint = JSON.parse(last('ENTRYPOINT') ?? 'null') as unknown;
    assert.ok(Array.isArray(entrypoint) && /(^|\/)tini$/.test(String(entrypoint[0])));
    const cmd = JSON.parse(last('CMD') ?? 'null') as unknown;
    assert.ok(Array.isArray(cmd) && cmd[0] === 'node', `CMD must be ["node", ...]`);
  });
});
