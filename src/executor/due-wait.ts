/**
 * How a call held for its ratecount due waits for it (pair-executor.ts, plan_ahead_ms): on the
 * event loop rather than a timer, which rounds to whole milliseconds and fires late.
 */

/**
 * The client's signing is warmed this long before the due (SpotClient.warm): code run just before
 * is in the CPU's caches, and the held calls then leave sooner after the due (60 s pro runs, from
 * the due: p50 0.70 against 0.98 ms, 0.91 against 1.51 on a busy host). Long enough for a cold
 * signature to finish first. A clock that counts whole milliseconds (the system clock) shows no
 * moment that close: there, the signing is warmed in the last millisecond.
 */
export const WARM_LEAD_MS = 0.4;

/**
 * Resolves once `now()` reaches `atMs`, checking at every turn of the event loop, having called
 * `warm` once on the way if a check fell within the lead. A turn that jumps past the lead straight
 * to the due resolves without warming: a warm-up then would only delay the call.
 */
export function until(atMs: number, now: () => number, warm: () => void): Promise<void> {
  let warmed = false;
  return new Promise((resolve) => {
    const check = (): void => {
      const t = now();
      if (t >= atMs) {
        resolve();
        return;
      }
      if (!warmed && t >= atMs - (Number.isInteger(t) ? 1 : WARM_LEAD_MS)) {
        warmed = true;
        warm();
      }
      setImmediate(check);
    };
    check();
  });
}
