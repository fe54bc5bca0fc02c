import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { notReady } from '../../src/daemon/readiness.js';
import type { StatusReport } from '../../src/daemon/status-report.js';

const NOW = 1_800_000_000_000;

function report(over: Partial<StatusReport> = {}): StatusReport {
  return {
    atMs: NOW,
    mode: 'trading',
    halt: { halted: false },
    roles: { runner: { alive: true, beatAgeMs: 100 }, executor: { alive: true, beatAgeMs: 900 } },
    supervisor: { deadMan: { triggerAtMs: NOW + 40_000 } },
    pairs: [{ altname: 'XBTUSD', executor: true } as StatusReport['pairs'][number]],
    ...over,
  };
}

describe('/readyz: why the deployment is not trading', () => {
  it('is ready when nothing is halted, every role beats, the timer is armed and every pair is held', () => {
    assert.deepEqual(notReady(report(), NOW), []);
  });

  it('names each reason', () => {
    const reasons = notReady(
      report({
        mode: 'halted',
        halt: { halted: true, reason: 'risk: XBTUSD: max_base', by: 'supervisor', sinceMs: NOW },
        roles: { runner: { alive: false }, executor: { alive: true, beatAgeMs: 1 } },
        supervisor: { deadMan: { triggerAtMs: NOW - 1 } },
        pairs: [{ altname: 'XBTUSD', executor: false } as StatusReport['pairs'][number]],
      }),
      NOW,
    );
    assert.deepEqual(reasons, [
      'halted: risk: XBTUSD: max_base',
      'runner: no recent liveness beat',
      'supervisor: dead-man timer not armed',
      'XBTUSD: no executor holds it',
    ]);
    assert.deepEqual(notReady(report({ supervisor: undefined }), NOW), [
      'supervisor: no recent report',
    ]);
    const orderEntry = {
      failing: true,
      sinceMs: NOW - 5_000,
      roundTripP99Ms: 3_100,
      deadlineMs: 4_000,
    };
    const pair = (failing: boolean) =>
      ({
        altname: 'XBTUSD',
        executor: true,
        orderEntry: { ...orderEntry, failing },
      }) as StatusReport['pairs'][number];
    assert.deepEqual(notReady(report({ pairs: [pair(true)] }), NOW), [
      'XBTUSD: order entry failing: round trip p99 3100 ms, deadline at most 4000 ms',
    ]);
    assert.deepEqual(notReady(report({ pairs: [pair(false)] }), NOW), []);
  });
});
