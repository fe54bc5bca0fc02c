/**
 * `npm run test:stack`: builds the Dockerfile and brings up `docker compose --profile paper up` on
 * a real Docker engine, as an operator does, then checks the deployment end to end: the services
 * healthy, the bearer token written and required, Prometheus scraping makerd with it and sending
 * alerts to Alertmanager, `makerd halt` / `resume` through `exec`, and `stop` cancelling every
 * order on the simulator.
 *
 * Registry-agnostic: it uses the engine DOCKER_HOST names (else the default one) and whatever base
 * images that engine has or can pull; on a machine without a registry, .ci/run wraps it in
 * scripts/ci/docker-standins.sh. Compose v2 (`docker compose`) when present, else docker-compose.
 * The stack runs as its own project on free host ports and is probed from inside its containers,
 * so it disturbs neither another stack nor this machine's ports 9464, 9090 and 3000.
 * Not a *.test.ts file: `npm test` leaves it out (it needs Docker and a few minutes).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../src/core/free-port.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const IMAGE = 'makerd:stack-test';
const PROJECT = `makerd-stack-${process.pid}`;
const CONFIG = '/etc/makerd/makerd.yaml';
const PAPER_KEY = 'paper-key';

// No .env of the checkout (it may name a live config) and none of the operator's variables: the
// paper defaults, this test's image and project, and free host ports.
const dir = mkdtempSync(join(tmpdir(), 'makerd-stack-'));
const envFile = join(dir, 'empty.env');
writeFileSync(envFile, '');
const env: NodeJS.ProcessEnv = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(MAKERD_|GRAFANA_|PROMETHEUS_|ALERTMANAGER_|COMPOSE_)/.test(k),
    ),
  ),
  COMPOSE_PROJECT_NAME: PROJECT,
  MAKERD_IMAGE: IMAGE,
  MAKERD_PORT: String(await freePort()),
  PROMETHEUS_PORT: String(await freePort()),
  GRAFANA_PORT: String(await freePort()),
  ALERTMANAGER_PORT: String(await freePort()),
};

async function run(cmd: string, args: readonly string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await exec(cmd, args, {
    cwd: ROOT,
    env,
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

const composeCmd: readonly string[] = await exec('docker', ['compose', 'version'], { env }).then(
  () => ['docker', 'compose'],
  () => ['docker-compose'],
);

function compose(args: readonly string[], timeoutMs?: number): Promise<string> {
  const [cmd = '', ...pre] = composeCmd;
  return run(cmd, [...pre, '--env-file', envFile, '--profile', 'paper', ...args], timeoutMs);
}

const containers = new Map<string, string>();

/** The container of a service (exited ones included); the stack never recreates one. */
async function container(service: string): Promise<string> {
  let id = containers.get(service);
  if (id === undefined) {
    id = (await compose(['ps', '-a', '-q', service])).trim();
    assert.ok(id !== '', `no container for ${service}`);
    containers.set(service, id);
  }
  return id;
}

interface ContainerState {
  readonly Status: string;
  readonly ExitCode: number;
  readonly Health?: { readonly Status: string };
}

async function state(service: string): Promise<ContainerState> {
  const out = await run('docker', ['inspect', '-f', '{{json .State}}', await container(service)]);
  return JSON.parse(out) as ContainerState;
}

/**
 * Runs an ES module snippet with the container's node; its stdout, parsed as JSON. A probe, so
 * through `docker exec`, a few times faster than docker-compose 1.29's `exec`.
 */
async function nodeIn(service: string, script: string): Promise<unknown> {
  const id = await container(service);
  const out = await run('docker', ['exec', id, 'node', '--input-type=module', '-e', script]);
  return JSON.parse(out) as unknown;
}

/** Polls `probe` until `done` holds for its value; fails with the last value after `timeoutMs`. */
async function until<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | string = 'never probed';
  for (;;) {
    try {
      const value = await probe();
      if (done(value)) return value;
      last = value;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) {
      assert.fail(`${what}: not within ${timeoutMs / 1000} s; last: ${JSON.stringify(last)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** makerd's own endpoint, asked from inside its container: HTTP status and body of GET path. */
const makerdGet = async (
  path: string,
  withToken: boolean,
): Promise<{ status: number; body: string }> =>
  (await nodeIn(
    'makerd',
    `import { readFileSync } from 'node:fs';
     const token = readFileSync('/run/makerd/http-token', 'utf8').trim();
     const r = await fetch('http://127.0.0.1:9464${path}',
       ${withToken} ? { headers: { authorization: 'Bearer ' + token } } : {});
     console.log(JSON.stringify({ status: r.status, body: await r.text() }));`,
  )) as { status: number; body: string };

const mode = async (): Promise<string> => {
  const { status, body } = await makerdGet('/status', true);
  assert.equal(status, 200, body);
  return (JSON.parse(body) as { mode: string }).mode;
};

/** The paper key's open orders on the simulator (its admin API answers loopback only). */
const openOrders = async (): Promise<number> => {
  const r = (await nodeIn(
    'sim',
    `const r = await fetch('http://127.0.0.1:7878/_sim/orders?key=${PAPER_KEY}');
     console.log(await r.text());`,
  )) as { open_orders: unknown[] };
  return r.open_orders.length;
};

describe('docker compose --profile paper up', { timeout: 15 * 60_000 }, () => {
  before(async () => {
    // --network host: the build reaches the npm registry and Debian's mirror the way this machine
    // does (an engine without a default bridge has no other way out).
    await run('docker', ['build', '--network', 'host', '-t', IMAGE, '.'], 10 * 60_000);
    await compose(['up', '-d', '--no-build'], 5 * 60_000);
  });

  after(async () => {
    const logs = join(tmpdir(), `${PROJECT}.log`);
    writeFileSync(logs, await compose(['logs', '--no-color']).catch((e: Error) => e.message));
    console.log(`stack logs: ${logs}`);
    await compose(['down', '-v', '--remove-orphans'], 2 * 60_000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds an image that runs as uid 1000 without tsx or esbuild', async () => {
    const found = (m: string): string =>
      `${m}: (() => { try { require.resolve('${m}'); return true; } catch { return false; } })()`;
    const out = await run('docker', [
      ...['run', '--rm', '--network', 'none', '--entrypoint', 'node', IMAGE, '-e'],
      `console.log(JSON.stringify({ uid: process.getuid(), ${['ioredis', 'tsx', 'esbuild', 'typescript'].map(found).join(', ')} }))`,
    ]);
    assert.deepEqual(JSON.parse(out), {
      uid: 1000,
      ioredis: true,
      tsx: false,
      esbuild: false,
      typescript: false,
    });
  });

  it('has redis, sim and makerd healthy once http-token exited 0', async () => {
    const token = await until(
      'http-token exits',
      () => state('http-token'),
      (s) => s.Status === 'exited',
      60_000,
    );
    assert.equal(token.ExitCode, 0);
    for (const service of ['redis', 'sim', 'makerd']) {
      await until(
        `${service} healthy`,
        async () => (await state(service)).Health?.Status,
        (s) => s === 'healthy',
        180_000,
      );
    }
  });

  it('writes the bearer token, which makerd requires', async () => {
    const token = await run('docker', [
      'exec',
      await container('makerd'),
      'cat',
      '/run/makerd/http-token',
    ]);
    assert.match(token.trim(), /^[0-9a-f]{64}$/);
    assert.equal((await makerdGet('/status', false)).status, 401);
    assert.equal(await mode(), 'trading');
  });

  it('serves the operator console from the image, its data only with the token', async () => {
    const page = await makerdGet('/', false);
    assert.equal(page.status, 200, page.body);
    assert.match(page.body, /<script[^>]+console\/app\.js/);
    const app = await makerdGet('/console/app.js', false);
    assert.equal(app.status, 200);
    assert.ok(app.body.length > 50_000, `app.js of ${app.body.length} bytes`);
    assert.equal((await makerdGet('/console/session', false)).status, 200);
    // The stream needs the token: without it, 401 at once (with it, it would never end).
    assert.equal((await makerdGet('/console/stream', false)).status, 401);
  });

  it('has Prometheus scraping makerd with the token', async () => {
    const target = await until(
      'Prometheus target makerd up',
      async () => {
        const r = (await nodeIn(
          'makerd',
          `const r = await (await fetch('http://prometheus:9090/api/v1/targets')).json();
           console.log(JSON.stringify(r.data.activeTargets.find((t) => t.labels.job === 'makerd') ?? null));`,
        )) as { health: string; lastError: string } | null;
        return r;
      },
      (t) => t?.health === 'up',
      60_000,
    );
    assert.equal(target?.lastError, '');
  });

  it('has Prometheus sending alerts to Alertmanager, configured by its one-shot', async () => {
    const config = await until(
      'alertmanager-config exits',
      () => state('alertmanager-config'),
      (s) => s.Status === 'exited',
      60_000,
    );
    assert.equal(config.ExitCode, 0);
    const active = await until(
      "Alertmanager among Prometheus's active alertmanagers",
      async () =>
        (await nodeIn(
          'makerd',
          `const r = await (await fetch('http://prometheus:9090/api/v1/alertmanagers')).json();
           console.log(JSON.stringify(r.data.activeAlertmanagers.map((a) => a.url)));`,
        )) as string[],
      (urls) => urls.length > 0,
      60_000,
    );
    assert.match(active[0] ?? '', /alertmanager:9093/);
    const ready = (await nodeIn(
      'makerd',
      `const r = await fetch('http://alertmanager:9093/-/ready'); console.log(r.status);`,
    )) as number;
    assert.equal(ready, 200);
  });

  it('halts and resumes makerd through `exec`', async () => {
    await until('orders on the simulator', openOrders, (n) => n > 0, 90_000);
    await compose(['exec', '-T', 'makerd', 'node', 'bin/makerd.js', 'halt', '--config', CONFIG]);
    assert.equal(await mode(), 'halted');
    await until('orders cancelled by the halt', openOrders, (n) => n === 0, 30_000);
    await compose(['exec', '-T', 'makerd', 'node', 'bin/makerd.js', 'resume', '--config', CONFIG]);
    assert.equal(await mode(), 'trading');
    await until('orders placed again after resume', openOrders, (n) => n > 0, 90_000);
  });

  it('cancels every order when makerd is stopped', async () => {
    await until('orders to cancel', openOrders, (n) => n > 0, 60_000);
    await compose(['stop', 'makerd'], 60_000);
    const stopped = await state('makerd');
    assert.equal(stopped.Status, 'exited');
    assert.equal(stopped.ExitCode, 0);
    assert.equal(await openOrders(), 0);
    const log = await compose(['logs', '--no-color', 'makerd']);
    assert.match(log, /shutdown: orders cancelled, dead-man timer disarmed/);
  });
});
