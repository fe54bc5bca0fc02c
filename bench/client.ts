/**
 * `npm run bench`: three figures for the exchange client.
 *
 *   1. signed request build: AddOrder request object → form body with nonce → spot signature
 *      (the project's encodeForm, spotSigner and Credentials, as CallPipeline#prepare uses them);
 *   2. Depth parse: a 500-level Depth body through parseJsonBody → unwrapEnvelope → depth.decode;
 *   3. signed requests/s: SpotClient.balance() against a local HTTP server in a child process.
 *
 * Knobs (environment): BENCH_SECONDS (load duration, default 5), BENCH_CONCURRENCY (calls made
 * at once, default 32), BENCH_CONNECTIONS (transport pool size, default: the client's own default),
 * BENCH_NONCE_WINDOW (the key's nonce window, default 0 as the client's: one call on the wire at a
 * time; above 0 they overlap, up to the pool), BENCH_ONLY (comma list of build, depth, load;
 * default all three, e.g. to profile one of them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';

import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  Credentials,
  SpotClient,
  endpoints,
  spotSigner,
  type AddOrderRequest,
  type SpotClientOptions,
} from '../src/index.js';
import { parseJsonBody, unwrapEnvelope } from '../src/exchange/parse/envelope.js';
import { encodeForm } from '../src/exchange/transport/encode.js';
import { depthBody } from './support/depth-body.js';
import { envNumber, runLoad, type LoadFigures } from './support/load.js';
import { printHeader, startWatchdog } from './support/run.js';
import { fmt3, fmtInt, timeLoop } from './support/measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SCRIPT = fileURLToPath(new URL('./support/server.ts', import.meta.url));
const LOAD_SECONDS = envNumber('BENCH_SECONDS', 5);
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32);
const CONNECTIONS =
  process.env.BENCH_CONNECTIONS === undefined ? undefined : envNumber('BENCH_CONNECTIONS', 8);
const NONCE_WINDOW = envNumber('BENCH_NONCE_WINDOW', 0);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? 'build,depth,load').split(',').map((s) => s.trim()),
);
const WARMUP_SECONDS = 1;
/** The whole run must end by itself; this is the backstop if something hangs. */
const WATCHDOG_MS = 55_000;

const credentialsInput = {
  apiKey: 'bench-key-0123456789abcdef',
  apiSecret: randomBytes(64).toString('base64'),
};

// ---- 1. signed request build -------------------------------------------------------------------

function benchSignedBuild(): { usPerOp: number; opsPerSec: number } {
  const credentials = new Credentials(credentialsInput);
  const order: AddOrderRequest = {
    pair: 'XBTUSD',
    type: 'buy',
    ordertype: 'limit',
    price: '67123.4',
    volume: '0.01250000',
    oflags: 'post',
    timeinforce: 'GTC',
    userref: 1_716_000_123,
    close: { ordertype: 'limit', price: '68500.0' },
  };
  const ep = endpoints.addOrder;
  let nonce = Date.now();
  // What CallPipeline#prepare does for a private form endpoint once it has the nonce.
  const build = (): { body: string; headers: Record<string, string> } => {
    const nonceNumber = ++nonce;
    const path = ep.path(order);
    const body = encodeForm({ nonce: nonceNumber, ...order });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    Object.assign(
      headers,
      spotSigner.sign(
        { method: ep.method, path, query: '', body, nonce: String(nonceNumber) },
        credentials,
      ),
    );
    return { body, headers };
  };
  const sample = build();
  if (!sample.body.startsWith('nonce=') || sample.headers['API-Sign'] === undefined) {
    throw new Error(`unexpected signed request: ${JSON.stringify(sample.body)}`);
  }
  return timeLoop(build, 200_000, 20_000);
}

// ---- 2. Depth parse ----------------------------------------------------------------------------

interface DepthFigures {
  readonly usPerOp: number;
  readonly bodyBytes: number;
  readonly jsonParseUs: number;
  readonly decodeUs: number;
}

function benchDepthParse(): DepthFigures {
  const text = depthBody(500);
  const ep = endpoints.depth;
  const traceId = 'bench-trace';
  const parse = (): Record<string, endpoints.DepthBook> =>
    ep.decode(
      unwrapEnvelope(parseJsonBody(text, ep.name, traceId), ep.name, traceId).result,
      traceId,
    );

  const book = parse().XXBTZUSD;
  if (
    book?.asks.length !== 500 ||
    book.bids.length !== 500 ||
    typeof book.asks[0]?.timestamp !== 'number'
  ) {
    throw new Error('depth fixture did not decode to 500 + 500 levels');
  }
  const full = timeLoop(parse, 5_000, 1_000);
  // Breakdown: the JSON text step alone, then envelope + schema check + row naming alone.
  const jsonOnly = timeLoop(() => JSON.parse(text) as unknown, 5_000, 500);
  const parsed: unknown = JSON.parse(text);
  const decodeOnly = timeLoop(
    () => ep.decode(unwrapEnvelope(parsed, ep.name, traceId).result, traceId),
    5_000,
    500,
  );
  return {
    usPerOp: full.usPerOp,
    bodyBytes: Buffer.byteLength(text),
    jsonParseUs: jsonOnly.usPerOp,
    decodeUs: decodeOnly.usPerOp,
  };
}

// ---- 3. signed requests/s against a local server ----------------------------------------------

async function startServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`bench server did not start:\n${stderr}`)),
      15_000,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench server exited (${String(code)}):\n${stderr}`));
    });
    lines.on('line', (line) => {
      const match = /^PORT (\d+)$/.exec(line);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  lines.close();
  return { child, port };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

async function benchLoad(port: number): Promise<LoadFigures> {
  const options: SpotClientOptions = {
    baseUrl: `http://127.0.0.1:${port}`,
    credentials: credentialsInput,
    restLimiter: false,
    retry: { retries: 0 },
    nonceWindow: NONCE_WINDOW,
    ...(CONNECTIONS === undefined ? {} : { transport: { connectionsPerOrigin: CONNECTIONS } }),
  };
  const client = new SpotClient(options);
  try {
    return await runLoad(
      async (done) => {
        const t0 = performance.now();
        const res = await client.balance();
        if (res.result.ZUSD === undefined || res.traceId === undefined)
          throw new Error('bad answer');
        done(performance.now() - t0);
      },
      { concurrency: CONCURRENCY, seconds: LOAD_SECONDS, warmupSeconds: WARMUP_SECONDS },
    );
  } finally {
    await client.close();
  }
}

// ---- main --------------------------------------------------------------------------------------

function label(name: string): string {
  return name.padEnd(23);
}

async function main(): Promise<void> {
  let child: ChildProcess | undefined;
  const disarm = startWatchdog(WATCHDOG_MS, () => child?.kill('SIGKILL'));

  printHeader('client');

  if (ONLY.has('build')) {
    const build = benchSignedBuild();
    console.log(
      `${label('signed request build')}: ${fmt3(build.usPerOp)} µs/op (${fmtInt(build.opsPerSec)} ops/s)`,
    );
  }

  if (ONLY.has('depth')) {
    const depth = benchDepthParse();
    console.log(
      `${label('depth 500x2 parse')}: ${fmt3(depth.usPerOp)} µs/op (body ${fmt3(depth.bodyBytes / 1024)} KB;` +
        ` JSON.parse ${fmt3(depth.jsonParseUs)} µs, envelope+decode ${fmt3(depth.decodeUs)} µs)`,
    );
  }

  if (!ONLY.has('load')) {
    disarm();
    return;
  }
  try {
    const server = await startServer();
    child = server.child;
    const load = await benchLoad(server.port);
    const pool = CONNECTIONS === undefined ? 'default pool' : `${CONNECTIONS} connections`;
    console.log(
      `${label('signed requests/s')}: ${fmtInt(load.requestsPerSec)} req/s (${CONCURRENCY} at once, ${pool},` +
        ` nonce window ${NONCE_WINDOW} ms,` +
        ` p50 ${fmt3(load.p50Ms)} ms, p99 ${fmt3(load.p99Ms)} ms)`,
    );
    if (load.errors > 0) {
      console.log(
        `${label('  errors')}: ${fmtInt(load.errors)} (first: ${load.firstError ?? '?'})`,
      );
      process.exitCode = 1;
    }
  } finally {
    if (child !== undefined) await stopServer(child);
    disarm();
  }
}

await main();
