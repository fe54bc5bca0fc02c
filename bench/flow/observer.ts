/**
 * Watches a simulator in-process, at every tick: each pair's mid, spread and regime from the
 * engine's top of book, and the background makers' passive fills (read as they happen: the
 * engine keeps only the background's recent history).
 */
import type { SimContext } from '../../src/sim/index.js';
import type { SimTrade } from '../../src/sim/engine/types.js';
import { BACKGROUND_MAKER_KEY } from '../../src/sim/background/background-market.js';
import { MidSeries, type Fill } from './markouts.js';

export class FlowObserver {
  readonly series = new Map<string, MidSeries>();
  readonly makerFills: Fill[] = [];
  readonly #ctx: SimContext;
  #lastSeen: SimTrade | undefined;

  constructor(ctx: SimContext) {
    this.#ctx = ctx;
    for (const p of ctx.markets.pairs) this.series.set(p.id, new MidSeries());
  }

  sample(nowMs: number): void {
    const { engine, markets, background } = this.#ctx;
    for (const pair of markets.pairs) {
      const top = engine.top?.(pair);
      if (top?.bid === undefined || top.ask === undefined) continue;
      const mid = top.bid.plus(top.ask).div(2);
      this.series.get(pair.id)?.add({
        timeMs: nowMs,
        mid,
        spreadBps: top.ask.minus(top.bid).div(mid).times(10_000).toNumber(),
        regime: background.regime(pair.id) ?? 'calm',
      });
    }
    this.#collectMakerFills();
  }

  #collectMakerFills(): void {
    const maker = this.#ctx.accounts.get(BACKGROUND_MAKER_KEY);
    if (maker === undefined) return;
    const trades = this.#ctx.engine.trades(maker);
    const from = this.#lastSeen === undefined ? 0 : trades.lastIndexOf(this.#lastSeen) + 1;
    for (const t of trades.slice(from)) {
      if (t.maker) this.makerFills.push(toFill(t));
    }
    this.#lastSeen = trades[trades.length - 1] ?? this.#lastSeen;
  }
}

export function toFill(t: SimTrade): Fill {
  return { pair: t.pair.id, timeMs: t.timeMs, side: t.side, price: t.price };
}
