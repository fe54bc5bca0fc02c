import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisOrderTracker, type OrderTracker } from '../../src/orders/index.js';
import { startPaperRun, type Bot, type PaperRun } from '../support/paper-run.js';
import { REDIS_URL } from '../support/redis.js';
import { until } from '../support/until.js';

const PAIRS = ['XXBTZUSD', 'XETHZUSD'];
const RATE_LIMIT = 'EOrder:Rate limit exceeded';

interface StatusView {
  readonly pairs: readonly {
    readonly pair: string;
    readonly openOrders: number;
    readonly ratecount: { readonly level: number; readonly max: number };
  }[];
}

interface SimRatecounts {
  readonly ratecount: Readonly<Record<string, Readonly<Record<string, { level: number }>>>>;
}

/**
 * Issue #42 items 1 and 5, black-box: `makerd run` frozen (SIGSTOP) past its dead-man timeout,
 * so the exchange cancels every order meanwhile; after SIGCONT the ratecount model must count
 * what the timer cancelled before any new order entry.
 */
void describe('makerd run: frozen past the dead-man timeout', () => {
  let run: PaperRun;
  let bot: Bot;
  let http: string;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let tracker: OrderTracker;

  const status = async (): Promise<StatusView> =>
    (await (await fetch(`${http}/status`)).json()) as StatusView;
  const rateLimited = async (): Promise<number> => (await run.state()).rejections[RATE_LIMIT] ?? 0;
  /** Our open orders on the book sharing pair and userref with another: a slot placed twice. */
  const duplicates = async (): Promise<string[]> => {
    const res = await fetch(`${run.simUrl}/_sim/orders?key=${run.apiKey}`);
    const { open_orders: open } = (await res.json()) as {
      open_orders: { txid: string; pair: string; userref: number | null }[];
    };
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const o of open) {
      if (o.userref === null) continue;
      const slot = `${o.pair} userref ${o.userref}`;
      const first = seen.get(slot);
      if (first !== undefined) twice.push(`${first} and ${o.txid} (${slot})`);
      seen.set(slot, o.txid);
    }
    return twice;
  };
  /** Records the tracker (what /status counts) holds as live that the exchange does not. */
  const phantoms = async (): Promise<string[]> => {
    const [records, open] = await Promise.all([
      Promise.all(PAIRS.map((p) => tracker.live(p))).then((r) => r.flat()),
      run.orders(),
    ]);
    const onBook = new Set(open.map((o) => o.txid));
    return records
      .map((r) => r.txid ?? `(${r.state} ${r.slot})`)
      .filter((txid) => !onBook.has(txid));
  };

  before(async () => {
    run = await startPaperRun(
      42,
      {
        supervisor: {
          heartbeat: { timeout_s: 10, interval_s: 5 },
          status: { interval_ms: 1000 },
          resume: 'operator',
        },
      },
      'pro',
    );
    tracker = new RedisOrderTracker({ redis, prefix: run.prefix });
    ({ bot, http } = await run.start());
    await until(
      'both pairs quoted',
      async () => new Set((await run.orders()).map((o) => o.pair)).size === 2 || undefined,
    );
  });
  after(async () => {
    if (bot.child.exitCode === null) bot.child.kill('SIGCONT');
    await run.close();
    await tracker.close();
    redis.disconnect();
  });

  void it('counts what the dead-man cancelled: no rate-limit refusal after SIGCONT', async (t) => {
    const pid = bot.child.pid as number;
    // Frozen while busy, as in the issue: a model high in its budget still has points to decay
    // when the process wakes, so a penalty it missed is still owed then.
    await until(
      'the model high in its budget',
      async () =>
        (await status()).pairs.some((p) => p.ratecount.level >= p.ratecount.max - 40) || undefined,
      40_000,
      100,
    );
    const firedBefore = (await run.state()).dead_man_firings.length;
    process.kill(pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    const firing = await until(
      'the dead-man timer firing',
      async () => (await run.state()).dead_man_firings[firedBefore],
      20_000,
      200,
    );
    // Past the lease TTL too (10 s), as an operator's freeze of 12-20 s would be.
    const left = stoppedAt + 13_000 - Date.now();
    if (left > 0) await new Promise((r) => setTimeout(r, left));
    process.kill(pid, 'SIGCONT');
    const resumedAt = Date.now();
    t.diagnostic(
      `frozen ${resumedAt - stoppedAt} ms; the timer fired ${firing.atMs - stoppedAt} ms in, ` +
        `cancelling ${firing.cancelled} orders`,
    );

    const quotedAt = await until(
      'both pairs quoted again',
      async () =>
        new Set((await run.orders()).map((o) => o.pair)).size === 2 ? Date.now() : undefined,
      20_000,
      100,
    );
    t.diagnostic(`quoting both pairs again ${quotedAt - resumedAt} ms after SIGCONT`);
    const [s, sim] = await Promise.all([
      status(),
      (await fetch(`${run.simUrl}/_sim/state`)).json() as Promise<SimRatecounts>,
    ]);
    t.diagnostic(
      `ratecount model / exchange then: ${s.pairs
        .map(
          (p) => `${p.pair} ${p.ratecount.level} / ${sim.ratecount[run.apiKey]?.[p.pair]?.level}`,
        )
        .join(', ')}`,
    );

    // Trading until the model reaches the top of its budget on a pair: a model under the
    // exchange's counter is refused by then.
    const twice: string[] = [];
    const top = await until(
      'the model at the top of its budget, or a refusal',
      async () => {
        twice.push(...(await duplicates()));
        if ((await rateLimited()) > 0) return 'refused';
        const s = await status();
        const full = s.pairs.find((p) => p.ratecount.level >= p.ratecount.max - 5);
        return full === undefined ? undefined : `${full.pair} at ${full.ratecount.level}`;
      },
      40_000,
      100,
    );
    t.diagnostic(`${top} ${Date.now() - resumedAt} ms after SIGCONT`);
    const { rejections } = await run.state();
    assert.equal(rejections[RATE_LIMIT], undefined, JSON.stringify(rejections));
    assert.deepEqual(twice, [], 'no slot placed twice');

    const stall = bot.lines.find((l) => l.msg === 'woke from a stall');
    assert.ok(stall !== undefined, 'the stall log line');
    t.diagnostic(`stall line: ${JSON.stringify(stall)}`);
    assert.ok(Number(stall.stalledMs) >= 10_000, JSON.stringify(stall));
    assert.equal(stall.deadManFired, true, JSON.stringify(stall));
    assert.ok(Number(stall.ordersGone) > 0, JSON.stringify(stall));
    // The leases (TTL 10 s) lapsed in the freeze: taken back, and said so, not as a takeover.
    assert.ok(
      bot.lines.some((l) => l.msg === 'lease lapsed during a stall and retaken by this process'),
    );
    assert.equal(
      bot.lines.some((l) => l.why === 'lease taken by another process'),
      false,
      'a lapsed lease retaken by this process is no takeover',
    );

    // /status counts what the exchange holds, 15 s after the resume.
    const left15 = resumedAt + 15_000 - Date.now();
    if (left15 > 0) await new Promise((r) => setTimeout(r, left15));
    const agreed = await until(
      'the tracker agreeing with the exchange',
      async () => {
        const p = await phantoms();
        return p.length === 0 ? p : undefined;
      },
      10_000,
      200,
    );
    assert.deepEqual(agreed, []);
    assert.equal(bot.child.exitCode, null, 'still running');
  });
});

/**
 * Issue #42 item 6: SIGTERM in a burst, as a process manager and a shell signalling the same
 * process, or an impatient operator, send it: one clean shutdown all the same.
 */
void describe('makerd run: SIGTERM in a burst', () => {
  let run: PaperRun;
  let bot: Bot;

  before(async () => {
    run = await startPaperRun(43);
    ({ bot } = await run.start());
    await until(
      'both pairs quoted',
      async () => new Set((await run.orders()).map((o) => o.pair)).size === 2 || undefined,
    );
  });
  after(() => run.close());

  void it('cancels every order, disarms the dead-man timer and exits 0', async (t) => {
    const pid = bot.child.pid as number;
    const exited = once(bot.child, 'exit').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
      atMs: Date.now(),
    }));
    // The exchange slow over CancelAll: the whole burst lands while the shutdown waits for it.
    await run.admin('/_sim/faults', { paths: ['CancelAll'], latency_ms: 500 });
    const sentAt = Date.now();
    // Five within a quarter of a second; those after the exit find no process.
    for (let i = 0; i < 5 && bot.child.exitCode === null; i++) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const { code, signal, atMs } = await exited;
    t.diagnostic(`exit ${code ?? signal} ${atMs - sentAt} ms after the first SIGTERM`);
    assert.equal(code, 0, bot.stderr());
    assert.deepEqual(await run.orders(), [], 'no order left');
    assert.equal((await run.state()).dead_man[run.apiKey], undefined, 'the timer disarmed');
    assert.ok(
      bot.lines.some((l) => l.msg === 'shutdown: orders cancelled, dead-man timer disarmed'),
    );
  });
});
