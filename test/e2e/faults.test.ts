import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisOrderTracker, type OrderTracker } from '../../src/orders/index.js';
import { startPaperRun, type Bot, type PaperRun } from '../support/paper-run.js';
import { REDIS_URL } from '../support/redis.js';
import { until } from '../support/until.js';

const PAIRS = ['XXBTZUSD', 'XETHZUSD'];
const ORDER_ENTRY = ['AddOrder', 'AddOrderBatch', 'EditOrder', 'CancelOrder', 'CancelOrderBatch'];
const RECONCILE_MS = 10_000;

/**
 * Issue #32 items 1 and 2, black-box: `makerd run` against `makerd sim` with a fifth of the
 * order-entry answers dropped after the exchange acted on them; then an exchange emergency, its
 * halt, and an operator's resume.
 */
void describe('makerd run: dropped answers, then a halt and a resume', () => {
  let run: PaperRun;
  let bot: Bot;
  let http: string;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  let tracker: OrderTracker;

  /** What the tracker holds as live and the exchange does not, and the other way round. */
  async function disagreement(): Promise<{ phantoms: string[]; unknownToUs: string[] }> {
    const [records, open] = await Promise.all([
      Promise.all(PAIRS.map((p) => tracker.live(p))).then((r) => r.flat()),
      run.orders(),
    ]);
    const ours = new Set(records.map((r) => r.txid ?? `(${r.state} ${r.slot})`));
    const theirs = new Set(open.map((o) => o.txid));
    return {
      phantoms: [...ours].filter((t) => !theirs.has(t)),
      unknownToUs: [...theirs].filter((t) => !ours.has(t)),
    };
  }
  const quotingBoth = async (): Promise<true | undefined> =>
    new Set((await run.orders()).map((o) => o.pair)).size === 2 ? true : undefined;

  before(async () => {
    // Pro: a full reconciliation every 10 s needs 0.4 REST points/s, more than a lower tier spares.
    run = await startPaperRun(23, { executor: { reconcile_interval_ms: RECONCILE_MS } }, 'pro');
    tracker = new RedisOrderTracker({ redis, prefix: run.prefix });
    ({ bot, http } = await run.start());
    await until('both pairs quoted', quotingBoth);
  });
  after(async () => {
    await run.close();
    await tracker.close();
    redis.disconnect();
  });

  void it('agrees with the exchange within a reconciliation after the faults, never halts, no rate-limit refusal', async (t) => {
    await run.admin('/_sim/faults', { paths: ORDER_ENTRY, drop_response_rate: 0.2, seed: 3 });
    await until(
      'eight answers dropped',
      async () => (((await run.state()).faults.counts.dropped ?? 0) >= 8 ? true : undefined),
      90_000,
      250,
    );
    await run.admin('/_sim/faults', {});
    const clearedAt = Date.now();
    // The bot keeps trading meanwhile: wait for a moment the two sides agree.
    const agreed = await until(
      'the tracker agreeing with the exchange',
      async () => {
        const d = await disagreement();
        return d.phantoms.length === 0 && d.unknownToUs.length === 0 ? d : undefined;
      },
      RECONCILE_MS + 10_000,
      200,
    );
    assert.deepEqual(agreed, { phantoms: [], unknownToUs: [] });
    t.diagnostic(`tracker agreed with the exchange ${Date.now() - clearedAt} ms after the faults`);
    const status = (await (await fetch(`${http}/status`)).json()) as {
      mode: string;
      halt: { reason?: string };
    };
    assert.equal(status.mode, 'trading', `no halt: ${status.halt.reason ?? ''}`);
    const { rejections } = await run.state();
    assert.equal(rejections['EOrder:Rate limit exceeded'], undefined, JSON.stringify(rejections));
  });

  void it('halts on an emergency, resumes on the operator’s word and goes on quoting', async (t) => {
    await run.admin('/_sim/status', { emergency: [{ title: 'test incident' }] });
    const emergencyAt = Date.now();
    await until('halted', async () => {
      const s = (await (await fetch(`${http}/status`)).json()) as { mode: string };
      return s.mode === 'halted' && (await run.orders()).length === 0 ? true : undefined;
    });
    const cancelledAt = Date.now();
    await until('the tracker holding no order after the halt', async () => {
      const live = await Promise.all(PAIRS.map((p) => tracker.live(p)));
      return live.flat().length === 0 ? true : undefined;
    });
    t.diagnostic(
      `emergency to every order cancelled ${cancelledAt - emergencyAt} ms; ` +
        `tracker empty ${Date.now() - emergencyAt} ms`,
    );
    await run.admin('/_sim/status', { emergency: [] });
    // As an operator would: resume, and again if the supervisor still saw the incident.
    await until(
      'resumed',
      async () => {
        await fetch(`${http}/resume`, { method: 'POST', body: '{}' });
        const s = (await (await fetch(`${http}/status`)).json()) as { mode: string };
        return s.mode === 'trading' ? true : undefined;
      },
      20_000,
      500,
    );
    await until('both pairs quoted again', quotingBoth, 30_000);
    assert.equal(bot.child.exitCode, null, 'still running');
    // The emergency's own line is the one error expected: nothing about leases or steps.
    const errors = bot.lines.filter(
      (l) =>
        (l.level === 'error' || l.level === 'fatal') &&
        !String(l.msg).startsWith('exchange emergency'),
    );
    assert.deepEqual(
      errors.map((l) => l.msg),
      [],
    );
  });
});
