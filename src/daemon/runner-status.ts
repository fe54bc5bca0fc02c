import type { RunnerRole } from './runner-role.js';

/**
 * One line an operator can read: per pair the mode, what is stale, the market, our orders and
 * what the runner has published. Logged periodically by `makerd runner`.
 */
export function runnerStatus(role: RunnerRole): Record<string, unknown> {
  const stats = new Map(role.runner.stats().map((s) => [s.pair, s]));
  return {
    pairs: role.feed.pairs.map((pair) => {
      const snap = role.feed.snapshot(pair.id);
      const run = stats.get(pair.altname);
      return {
        pair: pair.altname,
        strategy: run?.strategy,
        mode: snap.mode,
        ...(snap.modeReason === undefined ? {} : { mode_reason: snap.modeReason }),
        stale: snap.staleSources,
        mid: snap.mid?.toFixed(),
        spread: snap.spread?.toFixed(),
        our_orders: snap.openOrders.filter((o) => o.slot !== undefined).length,
        base: snap.inventory.base.total.toFixed(),
        quote: snap.inventory.quote.total.toFixed(),
        ticks: run?.ticks ?? 0,
        intents: run?.intents ?? 0,
        coalesced: run?.coalesced ?? 0,
        last_outcome: run?.lastOutcome,
      };
    }),
    polls_failing: role.feed
      .status()
      .filter((p) => p.consecutiveFailures > 0)
      .map((p) => ({ id: p.id, error: p.lastError, failures: p.consecutiveFailures })),
  };
}
