import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { logShutdown } from '../../src/daemon/supervisor-role.js';
import { logCollector, type LogEntry } from '../safety/log-collector.js';

function recorder() {
  const lines: LogEntry[] = [];
  return { lines, log: logCollector(lines) };
}

describe('the shutdown log line', () => {
  it('says done only when the exchange confirmed the cancel and the disarm', () => {
    const ok = recorder();
    logShutdown(ok.log, { cancelled: 3, disarmed: true }, true);
    assert.deepEqual(
      ok.lines.map((l) => [l.level, l.msg]),
      [['info', 'shutdown: orders cancelled, dead-man timer disarmed']],
    );
    const kept = recorder();
    logShutdown(kept.log, { cancelled: undefined, disarmed: true }, false);
    assert.equal(kept.lines[0]?.level, 'info', 'orders kept on purpose (cancel_orders: false)');
  });

  it('is an error naming what may be left when the exchange did not answer', () => {
    const r = recorder();
    logShutdown(r.log, { cancelled: undefined, disarmed: false }, true);
    assert.equal(r.lines[0]?.level, 'error');
    assert.equal(
      r.lines[0]?.msg,
      'shutdown incomplete: the exchange did not confirm the cancel or the disarm',
    );
    assert.equal(r.lines[0]?.fields.ordersMayRemain, true);
    assert.equal(r.lines[0]?.fields.timerMayBeArmed, true);
  });
});
