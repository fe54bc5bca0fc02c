import { Counter, type Registry } from 'prom-client';
import { StallWatch, type Clock, type Log } from '../core/index.js';

/**
 * The process's stall watch (src/core/stall-watch.ts) and its report: one warning per stall
 * saying how long the process stood still and what its roles found on waking (the supervisor:
 * whether the dead-man timer fired meanwhile; the executor: our orders the exchange cancelled
 * meanwhile and the ratecount points charged for them, after a full sync of each pair it holds),
 * and makerd_stalls_total.
 */
export function processStallWatch(clock: Clock, log: Log, registry: Registry): StallWatch {
  const stalls = new Counter({
    name: 'makerd_stalls_total',
    help: 'Times this process stood still (SIGSTOP, a paused VM, swapping): its 1 s watch saw a gap of 5 s or more',
    registers: [registry],
  });
  return new StallWatch(clock, (stall, found) => {
    stalls.inc();
    log.warn(
      {
        stalledMs: Math.round(stall.stalledMs),
        since: new Date(stall.fromMs).toISOString(),
        ...found,
      },
      'woke from a stall',
    );
  });
}
