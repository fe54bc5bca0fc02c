/**
 * `npm run bench:sim`: two figures for the exchange simulator.
 *
 *   1. engine actions/s in-process: limit orders placed around a mid on two accounts (some cross
 *      and trade), each cancelled a few actions later, straight through MatchingEngine;
 *   2. signed requests/s over HTTP: the project's SpotClient against `makerd sim` in a child
 *      process (limits off, as load tests must), a mix of AddOrder and CancelOrder, so every
 *      request runs the door (signature, nonce, permission) and the engine.
 *
 * Knobs (environment): BENCH_SECONDS (load duration, default 5), BENCH_CONCURRENCY (in-flight
 * calls, default 32), BENCH_ONLY (comma list of engine, http).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { dec, systemClock } from '../src/core/index.js';
import { SpotClient } from '../src/index.js';
import type { OrderSpec, SimOrder } from '../src/sim/engine/types.js';
import { createSimContext } from '../src/sim/index.js';
import { envNumber, runLoad, type LoadFigures } from './support/load.js';
import { printHeader, startWatchdog } from './support/run.js';
import { fmt3, fmtInt } from './support/measure.js';

const BIN = fileURLToPath(new URL('../bin/makerd.js', import.meta.url));
const LOAD_SECONDS = envNumber('BENCH_SECONDS', 5);
const CONCURRENCY = envNumber('BENCH_CONCURRENCY', 32);
const ONLY = new Set((process.env.BENCH_ONLY ?? 'engine,http').split(',').map((s) => s.trim()));
const WATCHDOG_MS = 60_000;

// ---- 1. engine in-process ------------------------------------------------------------------------

function benchEngine(): {
  actionsPerSec: number;
  actions: number;
  trades: number;
  resting: number;
} {
  const { ctx } = createSimContext({
    config: { background: { enabled: false }, enforce_limits: false },
    clock: systemClock,
    idSeed: 7,
  });
  const pair = ctx.markets.requirePair('XBTUSD');
  // Ten pro keys with up to 200 resting orders each: the tier's 225 open orders per pair is the
  // engine's own limit, not switched off with the REST limits.
  const accounts = Array.from({ length: 10 }, (_, i) => i).map((i) =>
    ctx.accounts.upsert(
      {
        key: `bench-${i}`,
        secret: randomBytes(32).toString('base64'),
        tier: 'pro',
        balances: { ZUSD: '1000000000', XXBT: '100000' },
      },
      systemClock.now(),
    ),
  );
  const flags = { post: false, fcib: false, fciq: false, nompp: false, viqc: false };
  let seed = 12345;
  const rand = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const live: { order: SimOrder; account: (typeof accounts)[number] }[] = [];
  let actions = 0;
  const step = (): void => {
    const account = accounts[actions % accounts.length];
    if (account === undefined) return;
    const side = rand() < 0.5 ? 'buy' : 'sell';
    // Mostly passive quotes within 50 ticks of 60000; one in ten crosses by a few ticks.
    const crossing = rand() < 0.1;
    const offset = Math.floor(rand() * 50) + 1;
    const ticks = crossing ? -3 : offset;
    const price = side === 'buy' ? 600_000 - ticks : 600_000 + ticks;
    const spec: OrderSpec = {
      pair,
      side,
      ordertype: 'limit',
      volume: dec('0.01'),
      price: { kind: 'abs', value: dec(price).div(10) },
      trigger: 'last',
      flags,
      timeinforce: 'GTC',
      starttmMs: 0,
      expiretmMs: 0,
      userref: 0,
      stptype: 'cancel-newest',
      reduceOnly: false,
    };
    const order = ctx.engine.place(account, spec);
    actions++;
    if (order.status === 'open') live.push({ order, account });
    // Keep about 1800 resting orders: cancel the oldest beyond that.
    while (live.length > 1800) {
      const oldest = live.shift();
      if (oldest !== undefined && oldest.order.status === 'open') {
        ctx.engine.cancel(oldest.account, oldest.order);
        actions++;
      }
    }
  };
  for (let i = 0; i < 20_000; i++) step();
  const start = performance.now();
  const before = actions;
  while (performance.now() - start < 3_000) for (let i = 0; i < 1000; i++) step();
  const elapsed = (performance.now() - start) / 1000;
  const done = actions - before;
  const trades = accounts.reduce((n, a) => n + ctx.engine.trades(a).length, 0);
  const book = ctx.engine.book(pair);
  return {
    actionsPerSec: done / elapsed,
    actions: done,
    trades,
    resting: book.bids.length + book.asks.length,
  };
}

// ---- 2. signed requests over HTTP --------------------------------------------------------------

const key = { apiKey: 'bench-http', apiSecret: randomBytes(64).toString('base64') };

async function startSim(): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'makerd-bench-'));
  const file = join(dir, 'sim.yaml');
  writeFileSync(
    file,
    stringify({
      enforce_limits: false,
      background: { enabled: false },
      accounts: [
        {
          key: key.apiKey,
          secret: key.apiSecret,
          tier: 'pro',
          balances: { ZUSD: '1000000000', XXBT: '100000' },
          // 32 requests in flight overtake each other's nonces on the way, as on a real venue.
          nonce_window: 1_000_000,
        },
      ],
    }),
  );
  const child = spawn(process.execPath, [BIN, 'sim', '--config', file, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const [line] = (await once(lines, 'line')) as [string];
  lines.close();
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

async function benchHttp(url: string): Promise<LoadFigures> {
  const client = new SpotClient({
    baseUrl: url,
    credentials: key,
    restLimiter: false,
    retry: { retries: 0 },
  });
  let n = 0;
  try {
    return await runLoad(
      async (done) => {
        const price = (59_000 + (n++ % 500) / 10).toFixed(1);
        const t0 = performance.now();
        const added = await client.addOrder({
          pair: 'XBTUSD',
          type: 'buy',
          ordertype: 'limit',
          price,
          volume: '0.001',
        });
        done(performance.now() - t0);
        const txid = added.result.txid?.[0];
        if (txid === undefined) throw new Error('no txid');
        const t1 = performance.now();
        await client.cancelOrder({ txid });
        done(performance.now() - t1);
      },
      { concurrency: CONCURRENCY, seconds: LOAD_SECONDS },
    );
  } finally {
    await client.close();
  }
}

// ---- main --------------------------------------------------------------------------------------

function label(name: string): string {
  return name.padEnd(26);
}

async function main(): Promise<void> {
  let child: ChildProcess | undefined;
  const disarm = startWatchdog(WATCHDOG_MS, () => child?.kill('SIGKILL'));
  printHeader('simulator');

  if (ONLY.has('engine')) {
    const e = benchEngine();
    console.log(
      `${label('engine actions/s')}: ${fmtInt(e.actionsPerSec)} actions/s in-process` +
        ` (place and cancel, ~${fmtInt(e.resting)} resting orders, ${fmtInt(e.trades)} fills)`,
    );
  }
  if (ONLY.has('http')) {
    try {
      const sim = await startSim();
      child = sim.child;
      const h = await benchHttp(sim.url);
      console.log(
        `${label('signed requests/s (HTTP)')}: ${fmtInt(h.requestsPerSec)} req/s` +
          ` (AddOrder + CancelOrder, ${CONCURRENCY} in flight, p50 ${fmt3(h.p50Ms)} ms, p99 ${fmt3(h.p99Ms)} ms)`,
      );
      if (h.errors > 0) {
        console.log(`${label('  errors')}: ${fmtInt(h.errors)} (first: ${h.firstError ?? '?'})`);
        process.exitCode = 1;
      }
    } finally {
      if (child !== undefined && child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  }
  disarm();
}

await main();
