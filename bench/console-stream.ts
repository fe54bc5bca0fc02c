/**
 * `npm run bench:console`: what the operator console's event stream costs `makerd run`, and
 * what a page that never reads does to it.
 *
 * Starts a Redis of its own, `makerd sim` (config/sim.yaml, the market moving) and `makerd run`
 * on config/paper.yaml through bin/makerd.js on the compiled dist/ (`npm run build` first), with
 * http.max_streams above the pages opened. After `--settle` seconds, two phases:
 *
 * 1. `--pages` pages (default 200) hold a stream each for `--seconds`: makerd's CPU (utime + stime
 *    of all its threads, from /proc) and RSS (VmRSS, sampled every 5 s), and per page the bytes and events received a
 *    second; one page rebuilds the state from the patches, to weigh a patch against the whole
 *    state (what each second cost before patches).
 * 2. The pages close and one connection asks for the stream and never reads: for `--seconds`,
 *    every 10 s, makerd's RSS and the bytes the kernel holds for that connection (Recv-Q of the
 *    reader, Send-Q of makerd's side, from `ss`), and whether makerd closed it.
 *
 * Flags: --pages N, --seconds S (each phase, default 600), --settle S (default 20),
 * --max-streams-option no (for a makerd without http.max_streams: measuring the code before it).
 */
import { get, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { errorMessage } from '../src/core/index.js';
import { applyStatePatch } from '../src/console/state-patch.js';
import { SseParser } from '../console/sse.js';
import { startRedisServer } from './idle/redis-server.js';
import { SIM_CONFIG, untilReady, writePaperConfig } from './soak/paper-config.js';
import { startMakerd, startSim } from './soak/processes.js';
import { readRssMb } from './soak/samples.js';
import { cpuMinus, cpuTimes, cpuTotal } from './support/process-cpu.js';
import { printHeader } from './support/run.js';

interface Args {
  readonly pages: number;
  readonly seconds: number;
  readonly settle: number;
  readonly maxStreamsOption: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args = { pages: 200, seconds: 600, settle: 20 };
  let maxStreamsOption = true;
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]?.replace(/^--/, '');
    const value = argv[i + 1] ?? '';
    if (name === 'max-streams-option' && (value === 'yes' || value === 'no')) {
      maxStreamsOption = value === 'yes';
      continue;
    }
    const n = Number(value);
    if ((name !== 'pages' && name !== 'seconds' && name !== 'settle') || !(n > 0)) {
      throw new Error(
        `usage: bench:console [--pages N] [--seconds S] [--settle S] [--max-streams-option yes|no] (got --${name} ${value})`,
      );
    }
    args[name] = n;
  }
  return { ...args, maxStreamsOption };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A page's stream: bytes and events counted; with `rebuild`, the state kept from the patches. */
interface Page {
  bytes: number;
  events: number;
  patchBytes: number;
  patches: number;
  state: unknown;
  readonly res: IncomingMessage;
}

async function openPage(url: string, rebuild: boolean): Promise<Page> {
  const req = get(`${url}/console/stream`, { agent: false });
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  if (res.statusCode !== 200) throw new Error(`stream: HTTP ${res.statusCode}`);
  const page: Page = { bytes: 0, events: 0, patchBytes: 0, patches: 0, state: undefined, res };
  const parser = new SseParser();
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    page.bytes += Buffer.byteLength(chunk);
    for (const e of parser.push(chunk)) {
      page.events += 1;
      if (e.event === 'patch') {
        page.patches += 1;
        page.patchBytes += Buffer.byteLength(e.data);
      }
      // Before patches, every second was a whole `state`.
      if (!rebuild) continue;
      if (e.event === 'state') page.state = JSON.parse(e.data);
      if (e.event === 'patch') page.state = applyStatePatch(page.state, JSON.parse(e.data));
    }
  });
  res.on('error', () => undefined);
  return page;
}

/** What the kernel holds for one connection, by the reader's local port (`ss`). */
async function queued(port: number): Promise<{ recvQ: number; sendQ: number; states: string }> {
  const { stdout } = await promisify(execFile)('ss', [
    '-tnH',
    `( sport = :${port} or dport = :${port} )`,
  ]);
  let recvQ = 0;
  let sendQ = 0;
  const states: string[] = [];
  for (const line of stdout.trim().split('\n')) {
    const [state, recv, send, local] = line.trim().split(/\s+/);
    if (state === undefined || local === undefined) continue;
    states.push(state);
    if (local.endsWith(`:${port}`)) recvQ += Number(recv);
    else sendQ += Number(send);
  }
  return { recvQ, sendQ, states: states.join('/') || 'gone' };
}

const mb = (n: number) => n.toFixed(1);
const kb = (n: number) => (n / 1024).toFixed(1);

async function pagesPhase(url: string, pid: number, args: Args): Promise<void> {
  console.log(`\n${args.pages} pages, ${args.seconds} s`);
  const pages: Page[] = [];
  for (let i = 0; i < args.pages; i++) pages.push(await openPage(url, i === 0));
  await sleep(5000);
  const from = pages.map((p) => ({ ...p }));
  const cpu0 = await cpuTimes(pid);
  const t0 = performance.now();
  const rss: number[] = [];
  const wholeBytes: number[] = [];
  while (performance.now() - t0 < args.seconds * 1000) {
    await sleep(5000);
    rss.push(await readRssMb(pid));
    if (pages[0]?.state !== undefined) wholeBytes.push(JSON.stringify(pages[0].state).length);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuTotal(cpuMinus(await cpuTimes(pid), cpu0));
  const per = (f: (p: Page, i: number) => number) =>
    pages.reduce((sum, p, i) => sum + f(p, i), 0) / pages.length / seconds;
  const bytes = per((p, i) => p.bytes - (from[i]?.bytes ?? 0));
  const events = per((p, i) => p.events - (from[i]?.events ?? 0));
  const patches = pages.reduce((n, p, i) => n + p.patches - (from[i]?.patches ?? 0), 0);
  const patchBytes = pages.reduce((n, p, i) => n + p.patchBytes - (from[i]?.patchBytes ?? 0), 0);
  const whole = wholeBytes.reduce((a, b) => a + b, 0) / Math.max(1, wholeBytes.length);
  const sorted = [...rss].sort((a, b) => a - b);
  const rows: [string, string][] = [
    ['makerd CPU', `${((cpu / seconds) * 100).toFixed(1)} % of a core`],
    [
      'makerd RSS',
      `first ${mb(rss[0] ?? NaN)} MB, median ${mb(sorted[sorted.length >> 1] ?? NaN)} MB, max ${mb(sorted.at(-1) ?? NaN)} MB`,
    ],
    ['per page', `${kb(bytes)} KB/s, ${events.toFixed(2)} events/s`],
    ['all pages', `${kb(bytes * pages.length)} KB/s`],
    [
      'a patch / the whole state',
      patches === 0
        ? `no patches (every second a whole state of ${kb(bytes / Math.max(events, 1))} KB)`
        : `${(patchBytes / patches).toFixed(0)} B / ${whole.toFixed(0)} B = ${((patchBytes / patches / whole) * 100).toFixed(1)} %`,
    ],
  ];
  print(rows);
  for (const p of pages) p.res.destroy();
}

async function stuckPhase(url: string, pid: number, args: Args): Promise<void> {
  console.log(`\none connection that never reads, ${args.seconds} s`);
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.pause();
  socket.write(`GET /console/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
  const local = socket.localPort ?? 0;
  let closedAt: number | undefined;
  socket.on('close', () => (closedAt ??= performance.now()));
  socket.on('error', () => undefined);
  const cpu0 = await cpuTimes(pid);
  const t0 = performance.now();
  console.log(
    `${'s'.padStart(5)}${'RSS MB'.padStart(9)}${'Recv-Q KB'.padStart(11)}${'Send-Q KB'.padStart(11)}  tcp`,
  );
  while (performance.now() - t0 < args.seconds * 1000) {
    await sleep(10_000);
    const q = await queued(local);
    const t = (performance.now() - t0) / 1000;
    console.log(
      `${t.toFixed(0).padStart(5)}${mb(await readRssMb(pid)).padStart(9)}${kb(q.recvQ).padStart(11)}${kb(q.sendQ).padStart(11)}  ${q.states}`,
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuTotal(cpuMinus(await cpuTimes(pid), cpu0));
  print([
    ['makerd CPU', `${((cpu / seconds) * 100).toFixed(1)} % of a core`],
    [
      'closed by makerd',
      // A reader that never reads sees the close only in the kernel's state (CLOSE-WAIT).
      (await queued(local)).states.includes('CLOSE-WAIT') ? 'yes' : 'no',
    ],
  ]);
  socket.destroy();
}

function print(rows: readonly [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  printHeader('console stream');
  const dir = await mkdtemp(join(tmpdir(), 'makerd-console-'));
  const redis = await startRedisServer();
  // A refused start (a stale dist/) must not leave the Redis child holding the bench open.
  const sim = await startSim(SIM_CONFIG).catch(async (err: unknown) => {
    await redis.stop();
    throw err;
  });
  try {
    const { file, metricsUrl } = await writePaperConfig({
      dir,
      simUrl: sim.url,
      redisUrl: redis.url,
      pairs: 2,
      prefix: `makerd-console-${process.pid}`,
    });
    const config = parse(await readFile(file, 'utf8')) as { http: Record<string, unknown> };
    if (args.maxStreamsOption) config.http.max_streams = args.pages + 10;
    await writeFile(file, stringify(config));
    const logFile = join(dir, 'makerd.log');
    const makerd = startMakerd(file, logFile);
    console.log(`makerd pid ${makerd.pid}, log ${logFile}; settle ${args.settle} s`);
    try {
      await untilReady(metricsUrl, makerd.exited);
      const stale = makerd.stale();
      if (stale !== undefined) throw new Error(`${stale}\nrun \`npm run build\` first`);
      await sleep(args.settle * 1000);
      const url = metricsUrl.replace(/\/metrics$/, '');
      console.log(`idle: makerd RSS ${mb(await readRssMb(makerd.pid))} MB`);
      await pagesPhase(url, makerd.pid, args);
      await sleep(5000);
      await stuckPhase(url, makerd.pid, args);
    } finally {
      const code = await makerd.stop();
      if (code !== 0) console.error(`makerd exited with code ${code} (log: ${logFile})`);
    }
  } finally {
    await sim.stop();
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  console.error(`bench:console: ${errorMessage(err)}`);
  process.exitCode = 1;
});
