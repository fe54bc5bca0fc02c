import { Decimal, type PairInfo, type Side } from '../core/index.js';

/** A fill of ours, as much of it as moves balances (the runner's FillEvent is one). */
export interface BalanceFill {
  /** The pair's id. */
  readonly pair: string;
  readonly side: Side;
  readonly volume: Decimal;
  /** Quote value of the execution, as the exchange counted it. */
  readonly cost: Decimal;
  readonly fee: Decimal;
  readonly feeIn: 'base' | 'quote';
  /** When it executed, as closely as the tracker knows (else when it was learned of). */
  readonly timeMs: number;
}

/** How far our fills moved one asset since the balance answer: its total and what is available. */
export interface BalanceMove {
  readonly total: Decimal;
  readonly available: Decimal;
}

const ZERO = new Decimal(0);
const NO_MOVE: BalanceMove = Object.freeze({ total: ZERO, available: ZERO });

/**
 * Our fills since the last BalanceEx answer, as moves of the assets they traded: the balance poll
 * runs every 10-120 s, fills arrive within a second, and an inventory-skew strategy must see a
 * fill when it happens. A fill timed before the call that fetched the balances is in them and is
 * not counted; the next answer takes over the fills before its own call.
 *
 * Per fill, the asset received (base on a buy, quote on a sell, less a fee taken in it) adds to
 * its total and to what is available; the asset paid (fee included when taken in it) leaves the
 * total only, since the order held it (BalanceEx `hold_trade`) while it rested.
 */
export class FillMoves {
  readonly #pairs: ReadonlyMap<string, PairInfo>;
  /** When the call behind the balances in use was made; fills before it are in them. */
  #sinceMs = -Infinity;
  #fills: BalanceFill[] = [];
  #moves: ReadonlyMap<string, BalanceMove> | undefined;

  constructor(pairs: readonly PairInfo[]) {
    this.#pairs = new Map(pairs.map((p) => [p.id, p]));
  }

  /** A balance answer to a call made at `askedAtMs` is now the one in use. */
  polled(askedAtMs: number): void {
    this.#sinceMs = askedAtMs;
    this.#fills = this.#fills.filter((f) => f.timeMs >= askedAtMs);
    this.#moves = undefined;
  }

  /** The assets the fill moves (empty when the balances in use hold it already, or not fed). */
  add(fill: BalanceFill): readonly string[] {
    const pair = this.#pairs.get(fill.pair);
    if (pair === undefined || fill.timeMs < this.#sinceMs) return [];
    this.#fills.push(fill);
    this.#moves = undefined;
    return [pair.base, pair.quote];
  }

  /** Per asset, the sum of the fills' moves since the balances in use. */
  moves(): ReadonlyMap<string, BalanceMove> {
    this.#moves ??= this.#sum();
    return this.#moves;
  }

  #sum(): Map<string, BalanceMove> {
    const out = new Map<string, BalanceMove>();
    const move = (asset: string, total: Decimal, available: Decimal): void => {
      const was = out.get(asset) ?? NO_MOVE;
      out.set(asset, { total: was.total.plus(total), available: was.available.plus(available) });
    };
    for (const f of this.#fills) {
      const pair = this.#pairs.get(f.pair);
      if (pair === undefined) continue;
      const buy = f.side === 'buy';
      const baseFee = f.feeIn === 'base' ? f.fee : ZERO;
      const quoteFee = f.feeIn === 'quote' ? f.fee : ZERO;
      const base = buy ? f.volume.minus(baseFee) : f.volume.plus(baseFee).neg();
      const quote = buy ? f.cost.plus(quoteFee).neg() : f.cost.minus(quoteFee);
      move(pair.base, base, buy ? base : ZERO);
      move(pair.quote, quote, buy ? ZERO : quote);
    }
    return out;
  }
}
