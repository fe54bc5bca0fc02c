import { systemClock, type Clock } from '../core/index.js';

/**
 * More signals within this long of the first are the same request: a burst (a process manager and
 * a shell both signalling, Ctrl-C in a terminal that also signals the group), not an operator
 * insisting. Exiting at the second would leave the orders on the book and the dead-man timer
 * armed.
 */
export const SIGNAL_BURST_MS = 1_000;

/**
 * Resolves with the first SIGINT or SIGTERM. A signal at least SIGNAL_BURST_MS after it, while
 * the caller is shutting down, exits at once: an operator signalling again means it.
 */
export function untilSignal(clock: Clock = systemClock): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      const firstAtMs = clock.now();
      const again = (code: number) => (): void => {
        if (clock.now() - firstAtMs >= SIGNAL_BURST_MS) process.exit(code);
      };
      process.on('SIGINT', again(130));
      process.on('SIGTERM', again(143));
      resolve(signal);
    };
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
}
