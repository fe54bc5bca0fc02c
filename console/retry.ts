/** First wait before reconnecting, and the longest: a phone back in coverage reconnects soon. */
const FIRST_MS = 1000;
const MOST_MS = 30_000;

/**
 * How long to wait before the next try after `failures` failed ones in a row (1, 2, 4 ... 30 s),
 * spread by ±20 % so that pages left open on several devices do not all hit a restarted daemon in
 * the same instant. `random` is Math.random in the page.
 */
export function reconnectDelayMs(failures: number, random: () => number): number {
  const base = Math.min(MOST_MS, FIRST_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}
