/**
 * Resolves with the first SIGINT or SIGTERM. A second signal while the caller is shutting down
 * exits at once: an operator pressing Ctrl-C twice means it.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve(signal);
    };
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
}
