/**
 * A reverse proxy from Debian in front of makerd, as an operator sets one up: nginx or Caddy run
 * from config/proxy/ as a child of the test (no system service), terminating TLS with a
 * self-signed certificate for PUBLIC_NAME that openssl makes. Clients reach PUBLIC_NAME on
 * loopback: chromium through a host-resolver rule, Node through proxyAgent's lookup.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import { until } from './until.js';

export const PUBLIC_NAME = 'makerd.example.com';
/** Debian's nginx, in /usr/sbin, which a user's PATH may not hold. */
export const NGINX = existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
/** Chromium's flag that sends PUBLIC_NAME to this machine. */
export const RESOLVE_PUBLIC_NAME = `--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`;

const CONFIGS = fileURLToPath(new URL('../../config/proxy/', import.meta.url));
/** What config/proxy/ says for a real deployment, replaced with the test's own. */
const CERT = '/etc/ssl/makerd/fullchain.pem';
const KEY = '/etc/ssl/makerd/privkey.pem';
const UPSTREAM = '127.0.0.1:9464';

export interface Certificate {
  readonly cert: string;
  readonly key: string;
  /** The certificate itself, which clients trust as its own authority. */
  readonly pem: string;
}

/** A self-signed certificate for PUBLIC_NAME in `dir`, valid for a day. */
export function selfSignedCertificate(dir: string): Certificate {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${PUBLIC_NAME}`,
      '-addext',
      `subjectAltName=DNS:${PUBLIC_NAME}`,
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl req failed: ${made.stderr}`);
  return { cert, key, pem: readFileSync(cert, 'utf8') };
}

export interface RunningProxy {
  /** https://PUBLIC_NAME:port */
  readonly origin: string;
  /** What the proxy wrote to stderr (its error log). */
  output(): string;
  stop(): Promise<void>;
}

export interface ProxySetup {
  /** The port the proxy listens on (its TLS side). */
  readonly port: number;
  /** makerd's HTTP port on 127.0.0.1. */
  readonly upstream: number;
  readonly certificate: Certificate;
  /** A folder of the test's own for the proxy's files. */
  readonly dir: string;
}

/** config/proxy/nginx.conf's server block, in a main config of the test's own (`nginx -c`). */
export async function startNginx(setup: ProxySetup): Promise<RunningProxy> {
  const { dir, port } = setup;
  // Workers run as nobody and write their temporary files under it.
  chmodSync(dir, 0o755);
  const site = join(dir, 'makerd-site.conf');
  writeFileSync(
    site,
    substitute(readFileSync(join(CONFIGS, 'nginx.conf'), 'utf8'), [
      ['listen 443 ssl', `listen 127.0.0.1:${port} ssl`],
      ...commonSubstitutions(setup),
    ]),
  );
  const main = join(dir, 'nginx.conf');
  writeFileSync(
    main,
    [
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      'error_log stderr warn;',
      'events { worker_connections 64; }',
      'http {',
      '  access_log off;',
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (t) => `  ${t}_temp_path ${join(dir, `${t}_temp`)};`,
      ),
      `  include ${site};`,
      '}',
      '',
    ].join('\n'),
  );
  return started(spawn(NGINX, ['-c', main, '-p', dir, '-e', 'stderr']), setup);
}

/** config/proxy/Caddyfile, with Caddy's admin endpoint and port-80 redirects off (`caddy run`). */
export async function startCaddy(setup: ProxySetup): Promise<RunningProxy> {
  const { dir, port } = setup;
  const home = join(dir, 'caddy-home');
  mkdirSync(home, { recursive: true });
  const file = join(dir, 'Caddyfile');
  const site = substitute(readFileSync(join(CONFIGS, 'Caddyfile'), 'utf8'), [
    [`${PUBLIC_NAME} {`, `${PUBLIC_NAME}:${port} {`],
    ...commonSubstitutions(setup),
  ]);
  // Port 80 and the admin port 2019 are this machine's, not the test's.
  writeFileSync(file, `{\n\tadmin off\n\tauto_https disable_redirects\n}\n\n${site}`);
  const child = spawn('caddy', ['run', '--adapter', 'caddyfile', '--config', file], {
    env: { ...process.env, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home },
  });
  return started(child, setup);
}

function commonSubstitutions(setup: ProxySetup): [string, string][] {
  return [
    [CERT, setup.certificate.cert],
    [KEY, setup.certificate.key],
    [UPSTREAM, `127.0.0.1:${setup.upstream}`],
  ];
}

/** `text` with each `[from, to]` replaced; a `from` the file no longer holds fails the test. */
function substitute(text: string, pairs: readonly [string, string][]): string {
  let out = text;
  for (const [from, to] of pairs) {
    if (!out.includes(from)) throw new Error(`config/proxy/: no '${from}' to replace`);
    out = out.replaceAll(from, to);
  }
  return out;
}

/** Resolves once the proxy answers over TLS (a positive signal, not a sleep). */
async function started(child: ChildProcess, setup: ProxySetup): Promise<RunningProxy> {
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const origin = `https://${PUBLIC_NAME}:${setup.port}`;
  const agent = proxyAgent(setup.certificate);
  const stop = async (): Promise<void> => {
    await agent.destroy();
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  try {
    await until(
      `the proxy on ${setup.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`the proxy exited: ${output}`);
        try {
          await (await fetch(`${origin}/healthz`, { dispatcher: agent })).arrayBuffer();
          return true;
        } catch {
          return undefined;
        }
      },
      10_000,
      50,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { origin, output: () => output, stop };
}

/**
 * An undici Agent that reaches PUBLIC_NAME on 127.0.0.1, trusts the test's certificate (TLS is
 * checked), and connects from `localAddress` (another loopback address than the proxy's own, so
 * makerd's record shows whose address it took).
 */
export function proxyAgent(certificate: Certificate, localAddress?: string): Agent {
  return new Agent({
    ...(localAddress === undefined ? {} : { localAddress }),
    connect: {
      ca: certificate.pem,
      lookup: (host, options, callback) => {
        if (host !== PUBLIC_NAME) {
          callback(new Error(`only ${PUBLIC_NAME} is reachable here`), '', 4);
        } else if (options.all === true) {
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(
            null,
            [{ address: '127.0.0.1', family: 4 }],
          );
        } else callback(null, '127.0.0.1', 4);
      },
    },
  });
}
