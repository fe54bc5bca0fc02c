import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REST_COUNTER, TIERS, type Tier } from '../../src/exchange/index.js';
import { startHarness } from './sim-harness.js';

/**
 * The planner's promise, checked end to end: two pairs, default config, the REST limiter on, the
 * supervisor's heartbeat beside the polls, ten simulated minutes. The simulator enforces the
 * spec's counter; the key must never reach `EAPI:Rate limit exceeded` and the polls must achieve
 * what the plan promised.
 */

const RUN_MS = 10 * 60_000;
const HEARTBEAT_MS = 20_000;

async function runTier(tier: Tier, diagnostic: (msg: string) => void): Promise<void> {
  const h = await startHarness();
  try {
    const key = h.sim.addAccount({ tier });
    const account = h.sim.ctx.accounts.get(key.apiKey);
    assert.ok(account);
    const client = h.client(key, tier);
    const { feed } = await h.feed(client, ['XBTUSD', 'ETHUSD']);
    const plan = feed.plan;

    const heartbeats = { ok: 0, failed: [] as string[] };
    const stopHeartbeat = new AbortController();
    const heartbeat = (async () => {
      while (!stopHeartbeat.signal.aborted) {
        try {
          await client.cancelAllOrdersAfter(
            { timeout: 60 },
            { priority: 'high', signal: stopHeartbeat.signal },
          );
          heartbeats.ok += 1;
        } catch (err) {
          if (stopHeartbeat.signal.aborted) return;
          heartbeats.failed.push(err instanceof Error ? err.message : String(err));
        }
        try {
          await h.clock.sleep(HEARTBEAT_MS, stopHeartbeat.signal);
        } catch {
          return;
        }
      }
    })();

    const max = REST_COUNTER[tier].max;
    let peak = 0;
    let restricted = false;
    const startMs = h.clock.now();
    feed.start();
    await h.run(RUN_MS, () => {
      const rest = h.sim.ctx.limits.snapshot([account], h.clock.now()).rest[key.apiKey];
      peak = Math.max(peak, rest?.level ?? 0);
      restricted ||= rest?.restricted === true;
    });
    stopHeartbeat.abort();
    await heartbeat;
    await feed.stop();
    const elapsed = h.clock.now() - startMs;

    const statuses = feed.status();
    const perPoll = plan.polls
      .filter((p) => p.scope === 'private')
      .map((p) => ({
        id: p.id,
        intervalMs: p.intervalMs,
        want: Math.floor((elapsed - p.offsetMs) / p.intervalMs) + 1,
        got: statuses.find((s) => s.id === p.id)?.counts.ok ?? 0,
      }));
    const promised = perPoll.reduce((n, p) => n + p.want, 0);
    const achieved = perPoll.reduce((n, p) => n + p.got, 0);
    const rates = perPoll.map(
      (p) => `${p.id} every ${(p.intervalMs / 1000).toFixed(2)} s: ${p.got}/${p.want}`,
    );
    const pointsPerSec = (achieved * 1000) / elapsed;
    diagnostic(
      `${tier}: ${achieved}/${promised} private polls (${pointsPerSec.toFixed(3)} points/s, ` +
        `plan ${plan.private.plannedPerSec.toFixed(3)}/s + heartbeat ${plan.private.heartbeatPerSec.toFixed(3)}/s, ` +
        `decay ${REST_COUNTER[tier].decayPerSec}/s); counter peak ${peak.toFixed(2)}/${max}; ` +
        rates.join('; '),
    );
    const rejections = Object.fromEntries(h.sim.sim.server.rejections);
    assert.equal(rejections['EAPI:Rate limit exceeded'], undefined, JSON.stringify(rejections));
    assert.equal(restricted, false);
    assert.ok(peak <= max, `counter peaked at ${peak} > ${max}`);
    // A plan under the decay drains the counter between polls: it never builds up.
    assert.ok(peak < max / 2, `counter built up to ${peak} of ${max}`);
    assert.deepEqual(heartbeats.failed, []);
    assert.equal(heartbeats.ok, Math.floor(RUN_MS / HEARTBEAT_MS) + 1);

    for (const s of statuses) {
      assert.notEqual(s.lastErrorCode, 'API_RATE_LIMIT_EXCEEDED', s.id);
      assert.equal(s.counts.throttled, 0, `${s.id} throttled`);
    }
    assert.ok(achieved >= 0.9 * promised, `${achieved} of ${promised} promised private polls`);
    for (const p of perPoll) {
      assert.ok(p.got >= 0.9 * p.want, `${p.id}: ${p.got} of ${p.want} promised polls`);
    }
  } finally {
    await h.close();
  }
}

describe('budget property: ten minutes per tier without a REST rejection', () => {
  for (const tier of TIERS) {
    it(`${tier}: 2 pairs, default config, heartbeats every 20 s`, async (t) => {
      await runTier(tier, (msg) => {
        t.diagnostic(msg);
        console.log(msg);
      });
    });
  }
});
