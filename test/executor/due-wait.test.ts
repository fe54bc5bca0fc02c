import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WARM_LEAD_MS, until } from '../../src/executor/due-wait.js';

/** A clock that reads the given times in turn (the last one from then on), noting each read. */
function clockReading(times: readonly number[], log: string[]): () => number {
  let i = 0;
  return () => {
    const t = times[Math.min(i++, times.length - 1)] as number;
    log.push(`now ${t}`);
    return t;
  };
}

async function wait(times: readonly number[], atMs: number): Promise<string[]> {
  const log: string[] = [];
  await until(atMs, clockReading(times, log), () => log.push('warm'));
  log.push('due');
  return log;
}

void describe('until: waiting for a ratecount due', () => {
  void it('warms once within the lead, then resolves at the due', async () => {
    const due = 1_000.5;
    const log = await wait([990, due - 2, due - WARM_LEAD_MS / 2, due - 0.1, due], due);
    assert.deepEqual(log, [
      'now 990',
      `now ${due - 2}`,
      `now ${due - WARM_LEAD_MS / 2}`,
      'warm',
      `now ${due - 0.1}`,
      `now ${due}`,
      'due',
    ]);
  });

  void it('with a clock of whole milliseconds, warms in the last millisecond before the due', async () => {
    const log = await wait([997, 998, 999, 1_000], 1_000);
    assert.deepEqual(log, ['now 997', 'now 998', 'now 999', 'warm', 'now 1000', 'due']);
  });

  void it('does not warm when a turn jumps past the lead to the due', async () => {
    const log = await wait([990, 1_001], 1_000);
    assert.deepEqual(log, ['now 990', 'now 1001', 'due']);
  });

  void it('resolves at once when the due has passed', async () => {
    const log = await wait([1_005], 1_000);
    assert.deepEqual(log, ['now 1005', 'due']);
  });
});
