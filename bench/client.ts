/**
 * `npm run bench`: four figures for the exchange client.
 *
 *   1. signed request build: AddOrder request object → form body with nonce → spot signature
 *      (the project's encodeForm, spotSigner and Credentials, as CallPipeline#prepare uses them);
 *   2. Depth parse: a 500-level Depth body through parseJsonBody → unwrapEnvelope → depth.decode;
 *   3. Level3 parse: a body of 500 orders a side (nanosecond timestamps beyond 2^53) through
 *      makerd's parseJsonBigInts, beside the lossless-json parser it replaced and ccxt's technique,
 *      then the whole SpotClient.level3() call on an in-process transport (replay's path), in CPU
 *      time of this process, so that other processes on the machine move the figures less;
 *   4. signed requests/s: SpotClient.balance() against a local HTTP server in a child process.
 *
 * Knobs (environment): BENCH_SECONDS (load duration, default 5), BENCH_CONCURRENCY (calls made
 * at once, default 32), BENCH_CONNECTIONS (transport pool size, default: the client's own default),
 * BENCH_NONCE_WINDOW (the key's nonce window, default 0 as the client's: one call on the wire at a
 * time; above 0 they overlap, up to the pool), BENCH_ONLY (comma list of build, depth, level3,
 * load; default all four, e.g. to profile one of them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';

import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse as parseLossless } from 'lossless-json';
import {
  Credentials,
  SpotClient,
  endpoints,
  spotSigner,
  type AddOrderRequest,
  type HttpResponse,
  type SpotClientOptions,
  type Transport,
} from '../src/index.js';
import { parseJsonBody, unwrapEnvelope } from '../src/exchange/parse/envelope.js';
import { parseExact } from '../src/exchange/parse/exact-json.js';
import { exactNumber } from '../src/exchange/parse/exact-number.js';
import { parseJsonBigInts } from '../src/exchange/parse/json.js';
import { encodeForm } from '../src/exchange/transport/encode.js';
import { depthBody } from './support/depth-body.js';
import { level3Body } from './support/level3-body.js';
import { envNumber, runLoad, type LoadFigures } from './support/load.js';
import { printHeader, startWatchdog } from './support/run.js';
import { fmt3, fmtInt, percentile, timeLoop } from './support/measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SCRIPT = fileURLToPath(new URL('./support/server.ts', import.meta.url));
const LOAD_SECONDS = envNumber('BENCH_SECONDS', 5);
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32);
const CONNECTIONS =
  process.env.BENCH_CONNECTIONS === undefined ? undefined : envNumber('BENCH_CONNECTIONS', 8);
const NONCE_WINDOW = envNumber('BENCH_NONCE_WINDOW', 0);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? 'build,depth,level3,load').split(',').map((s) => s.trim()),
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

// ---- 3. Level3 parse ---------------------------------------------------------------------------

/** The parser makerd used before: lossless-json's tokenizer with the same number rule. */
const losslessParse = (text: string): unknown => parseLossless(text, null, exactNumber);

/**
 * ccxt's technique (ccxt 4.5.84, js/src/base/Exchange.js): onRestResponse trims the body,
 * onJsonResponse quotes every number that follows a key with
 * `/":([+.0-9eE-]+)([,}])/g` → `'":"$1"$2'`, and parseJson hands the result to JSON.parse. The
 * numbers come back as strings (ccxt converts them later, field by field); exactness of digits
 * inside strings is not its concern. Reimplemented here as a reference, not a dependency.
 */
const CCXT_NUMBERS = /":([+.0-9eE-]+)([,}])/g;
const ccxtStyleParse = (text: string): unknown =>
  JSON.parse(text.trim().replace(CCXT_NUMBERS, '":"$1"$2'));

interface Level3Figures {
  readonly bodyBytes: number;
  readonly makerdUs: number;
  readonly generalUs: number;
  readonly losslessUs: number;
  readonly ccxtUs: number;
  readonly decodeUs: number;
  readonly callUs: number;
}

/** Answers every request with the same body, as replay answers from a recording. */
class CannedTransport implements Transport {
  readonly #answer: HttpResponse;
  constructor(body: string) {
    this.#answer = {
      status: 200,
      body,
      bytes: undefined,
      traceId: 'bench-trace',
      contentType: 'application/json',
    };
  }
  send(): Promise<HttpResponse> {
    return Promise.resolve(this.#answer);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function benchLevel3Parse(): Promise<Level3Figures> {
  const text = level3Body(500);
  const ep = endpoints.level3;
  const traceId = 'bench-trace';
  const makerd = (): unknown => parseJsonBigInts(text);

  // The three must agree where they overlap: the same timestamps (ccxt's as text).
  const stamps = (value: unknown): unknown[] =>
    (value as { result: { bids: { timestamp: unknown }[] } }).result.bids.map((b) => b.timestamp);
  const ours = stamps(makerd());
  if (ours.length !== 500 || !ours.every((t) => typeof t === 'bigint')) {
    throw new Error('Level3 fixture did not parse to 500 bids with bigint timestamps');
  }
  for (const other of [losslessParse, ccxtStyleParse]) {
    if (stamps(other(text)).map(String).join() !== ours.map(String).join()) {
      throw new Error('the Level3 parsers disagree on the timestamps');
    }
  }

  // Interleaved rounds: a burst of load from a neighbour process hits all of them alike.
  const decode = (): unknown =>
    ep.decode(
      unwrapEnvelope(parseJsonBody(text, ep.name, traceId, parseJsonBigInts), ep.name, traceId)
        .result,
      traceId,
    );
  // parseExact: what makerd spends on a Level3 text in any other layout (level3-layout.ts).
  const [makerdUs, generalUs, losslessUs, ccxtUs, decodeUs] = compareLoops(
    [makerd, () => parseExact(text), () => losslessParse(text), () => ccxtStyleParse(text), decode],
    200,
  );
  const callUs = await timeClientLevel3(text);
  return {
    bodyBytes: Buffer.byteLength(text),
    makerdUs: makerdUs ?? Number.NaN,
    generalUs: generalUs ?? Number.NaN,
    losslessUs: losslessUs ?? Number.NaN,
    ccxtUs: ccxtUs ?? Number.NaN,
    decodeUs: decodeUs ?? Number.NaN,
    callUs,
  };
}

/**
 * CPU µs of this process per call (process.cpuUsage, user + system): on a shared machine the
 * wall clock also counts the time other processes held the CPU, which moves from run to run.
 */
function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * CPU µs per call of each function: `rounds` rounds, each timing `perRound` calls of every
 * function in turn; the figure is each function's median round.
 */
function compareLoops(fns: readonly (() => unknown)[], perRound: number, rounds = 15): number[] {
  for (const fn of fns) for (let i = 0; i < perRound; i++) fn();
  const samples = fns.map(() => new Float64Array(rounds));
  for (let r = 0; r < rounds; r++) {
    fns.forEach((fn, k) => {
      const start = cpuMicros();
      for (let i = 0; i < perRound; i++) fn();
      const sample = samples[k];
      if (sample !== undefined) sample[r] = (cpuMicros() - start) / perRound;
    });
  }
  return samples.map((s) => percentile(s.sort(), 50));
}

/** SpotClient.level3() end to end (signing, nonce, pipeline, parse, decode), one at a time. */
async function timeClientLevel3(text: string): Promise<number> {
  const client = new SpotClient({
    baseUrl: 'http://replay.invalid',
    credentials: credentialsInput,
    restLimiter: false,
    retry: { retries: 0 },
    transport: new CannedTransport(text),
  });
  try {
    const once = async (): Promise<void> => {
      const res = await client.level3({ pair: 'XBTUSD', depth: 0 });
      if (res.result.asks.length !== 500) throw new Error('bad Level3 answer');
    };
    for (let i = 0; i < 300; i++) await once();
    const rounds = new Float64Array(9);
    for (let r = 0; r < rounds.length; r++) {
      const start = cpuMicros();
      for (let i = 0; i < 200; i++) await once();
      rounds[r] = (cpuMicros() - start) / 200;
    }
    return percentile(rounds.sort(), 50);
  } finally {
    await client.close();
  }
}

// ---- 4. signed requests/s against a local server ----------------------------------------------

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

  if (ONLY.has('level3')) {
    const l3 = await benchLevel3Parse();
    console.log(
      `${label('level3 500x2 parse')}: makerd ${fmt3(l3.makerdUs)} µs/op CPU (body ${fmt3(l3.bodyBytes / 1024)} KB;` +
        ` another layout ${fmt3(l3.generalUs)} µs; lossless-json ${fmt3(l3.losslessUs)} µs,` +
        ` ccxt-style ${fmt3(l3.ccxtUs)} µs;` +
        ` makerd/ccxt ${fmt3(l3.makerdUs / l3.ccxtUs)})`,
    );
    console.log(
      `${label('level3 500x2 client')}: ${fmt3(l3.callUs)} µs/call CPU (SpotClient.level3 on an in-process` +
        ` transport; parse+envelope+decode ${fmt3(l3.decodeUs)} µs)`,
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
