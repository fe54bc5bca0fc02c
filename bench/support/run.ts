import { cpus } from 'node:os';

/**
 * A benchmark must end by itself: after `ms` this prints why, runs `onGiveUp` (kill a child
 * server) and exits with status 2. Returns the function that disarms it.
 */
export function startWatchdog(ms: number, onGiveUp: () => void): () => void {
  const timer = setTimeout(() => {
    console.error(`benchmark did not finish within ${ms / 1000} s; giving up`);
    onGiveUp();
    process.exit(2);
  }, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/** First line of every benchmark: what ran where, so quoted figures carry their machine. */
export function printHeader(what: string): void {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown cpu';
  console.log(`makerd ${what} benchmark (node ${process.version}, ${cpu}, ${cpus().length} cpus)`);
}
