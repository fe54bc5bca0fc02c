import { Decimal } from '../../core/index.js';

export type BookSideName = 'bid' | 'ask';

/** The pair's grid: prices on `tick`, volumes to `lotDecimals`. */
export interface PairGrid {
  readonly tick: Decimal;
  readonly lotDecimals: number;
}

/** What the importer changed in the data to fit the pair's rules, counted. */
export interface FitCounts {
  /**
   * Prices off the pair's tick, rounded outward and merged: each time a level appeared at one, and
   * each trade at one.
   */
  offTick: number;
  /** Levels the book held on the other side of an update (a stale level: removed). */
  crossed: number;
  /** Book rows and trades before the data's first snapshot (no book to apply them to: skipped). */
  beforeBook: number;
  /** Levels or trades whose volume had more decimals than the pair's lot (rounded). */
  lotRounded: number;
}

/** One level as a BookUpdate row lists it: price, and the level's new total ("0": gone). */
export type LevelText = readonly [string, string];

/** One BookUpdate row's content (src/recording/format.ts). */
export interface BookChange {
  readonly snapshot: boolean;
  readonly bids: readonly LevelText[];
  readonly asks: readonly LevelText[];
}

interface RawLevel {
  readonly price: Decimal;
  /** For ordering only (best price); values stay exact. */
  readonly num: number;
  amount: Decimal;
  /** Its price on the tick (bids down, asks up): the level it is merged into. */
  readonly onTick: string;
  readonly offTick: boolean;
}

/** One side: the data's own levels, and the same merged onto the pair's tick, best first. */
class Side {
  readonly raw = new Map<string, RawLevel>();
  readonly merged = new Map<string, Decimal>();
  /** The merged levels' prices, best first (`o`: the price, negated for bids). */
  readonly #sorted: { o: number; key: string }[] = [];
  /** The levels of the last BookUpdate row: price to the volume it gave. */
  emitted = new Map<string, string>();
  changed = false;
  /** Each merged level's volume on the pair's lot, as written. */
  readonly #texts = new Map<string, string>();
  readonly #isBid: boolean;
  readonly #depth: number;
  readonly #lotDecimals: number;
  #best: RawLevel | undefined;
  #bestKnown = true;

  constructor(isBid: boolean, depth: number, lotDecimals: number) {
    this.#isBid = isBid;
    this.#depth = depth;
    this.#lotDecimals = lotDecimals;
  }

  better(a: number, b: number): boolean {
    return this.#isBid ? a > b : a < b;
  }

  best(): RawLevel | undefined {
    if (!this.#bestKnown) {
      this.#best = undefined;
      for (const level of this.raw.values()) {
        if (this.#best === undefined || this.better(level.num, this.#best.num)) this.#best = level;
      }
      this.#bestKnown = true;
    }
    return this.#best;
  }

  set(key: string, level: RawLevel, amount: Decimal): void {
    const before = this.raw.get(key)?.amount ?? new Decimal(0);
    if (amount.isZero()) {
      this.raw.delete(key);
      if (this.#best === level || this.#best?.price.eq(level.price)) this.#bestKnown = false;
    } else {
      level.amount = amount;
      this.raw.set(key, level);
      const best = this.#bestKnown ? this.#best : undefined;
      if (this.#bestKnown && (best === undefined || this.better(level.num, best.num))) {
        this.#best = level;
      }
    }
    const had = this.merged.get(level.onTick);
    const total = (had ?? new Decimal(0)).minus(before).plus(amount);
    if (total.gt(0)) {
      this.merged.set(level.onTick, total);
      this.#texts.set(
        level.onTick,
        total.toDecimalPlaces(this.#lotDecimals, Decimal.ROUND_HALF_EVEN).toFixed(),
      );
      if (had === undefined) this.#insert(level.onTick);
    } else if (had !== undefined) {
      this.merged.delete(level.onTick);
      this.#texts.delete(level.onTick);
    }
    // Only a level within the written window (or one leaving it) changes what is written.
    const at = this.#indexOf(this.#orient(level.onTick));
    if (at < this.#depth) this.changed = true;
    if (!total.gt(0) && this.#sorted[at]?.key === level.onTick) this.#sorted.splice(at, 1);
  }

  clear(): void {
    this.raw.clear();
    this.merged.clear();
    this.#texts.clear();
    this.#sorted.length = 0;
    this.#best = undefined;
    this.#bestKnown = true;
    this.changed = true;
  }

  /** The written window: the best `depth` merged levels, best first, volumes as written. */
  window(): LevelText[] {
    return this.#sorted
      .slice(0, this.#depth)
      .map(({ key }): LevelText => [key, this.#texts.get(key) as string]);
  }

  #orient(key: string): number {
    return this.#isBid ? -Number(key) : Number(key);
  }

  /** First index whose price is not better than `o`. */
  #indexOf(o: number): number {
    let lo = 0;
    let hi = this.#sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#sorted[mid] as { o: number }).o < o) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #insert(key: string): void {
    const o = this.#orient(key);
    this.#sorted.splice(this.#indexOf(o), 0, { o, key });
  }
}

/**
 * The book an import rebuilds from the data, and what changed since the last BookUpdate row.
 * Prices off the pair's tick are rounded outward (bids down, asks up: the level is never shown
 * better than it was) and merged with the level already at that price; a level set on one side
 * removes the other side's levels it crosses (stale ones the feed never removed), so the
 * replay's recorded bids and asks never meet.
 */
export class ImportBook {
  readonly #grid: PairGrid;
  readonly #sides: { readonly bid: Side; readonly ask: Side };
  #snapshot = false;
  readonly counts: FitCounts = { offTick: 0, crossed: 0, beforeBook: 0, lotRounded: 0 };

  /** `depth`: the levels a side the recording holds (the best; the rest is kept, not written). */
  constructor(grid: PairGrid, depth: number) {
    this.#grid = grid;
    this.#sides = {
      bid: new Side(true, depth, grid.lotDecimals),
      ask: new Side(false, depth, grid.lotDecimals),
    };
  }

  /** Discards the whole book: the next change is a snapshot. */
  clear(): void {
    this.#sides.bid.clear();
    this.#sides.ask.clear();
    this.#snapshot = true;
  }

  /** One level of the data set to `amount` (0 removes it; a removal of an unknown level is a no-op). */
  set(side: BookSideName, priceText: string, amount: Decimal): void {
    const book = this.#sides[side];
    const price = new Decimal(priceText);
    const key = price.toFixed();
    let level = book.raw.get(key);
    if (level === undefined) {
      if (amount.isZero()) return;
      const onTick = this.onTick(price, side === 'bid' ? Decimal.ROUND_FLOOR : Decimal.ROUND_CEIL);
      const offTick = !onTick.eq(price);
      if (offTick) this.counts.offTick += 1;
      level = { price, num: price.toNumber(), amount, onTick: onTick.toFixed(), offTick };
    } else if (level.amount.eq(amount)) {
      return;
    }
    if (amount.decimalPlaces() > this.#grid.lotDecimals) this.counts.lotRounded += 1;
    book.set(key, level, amount);
    if (amount.gt(0)) this.#uncross(side, level.num);
  }

  /** A price on the tick, rounded the way given. */
  onTick(
    price: Decimal,
    rounding: typeof Decimal.ROUND_FLOOR | typeof Decimal.ROUND_CEIL,
  ): Decimal {
    const tick = this.#grid.tick;
    return price.div(tick).toDecimalPlaces(0, rounding).times(tick);
  }

  /**
   * Sets the book to the levels given (a book_snapshot row): the levels it held and the lists
   * lack go first, on both sides, so only the data's own crossing counts as crossed.
   */
  replace(
    bids: readonly (readonly [string, Decimal])[],
    asks: readonly (readonly [string, Decimal])[],
  ): void {
    for (const [name, levels] of [
      ['bid', bids],
      ['ask', asks],
    ] as const) {
      const side = this.#sides[name];
      const listed = new Set(levels.map(([price]) => new Decimal(price).toFixed()));
      for (const [key, level] of [...side.raw]) {
        if (!listed.has(key)) side.set(key, level, new Decimal(0));
      }
    }
    for (const [price, amount] of bids) this.set('bid', price, amount);
    for (const [price, amount] of asks) this.set('ask', price, amount);
  }

  /** The best prices of the data (not on the tick): a trade of unknown side is told by them. */
  best(): { bid: Decimal | undefined; ask: Decimal | undefined } {
    return { bid: this.#sides.bid.best()?.price, ask: this.#sides.ask.best()?.price };
  }

  /** A volume to the pair's lot, counted when that rounds it. */
  lot(volume: Decimal): Decimal {
    const rounded = volume.toDecimalPlaces(this.#grid.lotDecimals, Decimal.ROUND_HALF_EVEN);
    if (!rounded.eq(volume)) this.counts.lotRounded += 1;
    return rounded;
  }

  /**
   * What changed since the last call in the best `depth` levels a side, as one BookUpdate row's
   * content (undefined: nothing): the levels whose volume changed, those that left (volume "0")
   * and those that came in (the levels that left first). After a clear(), a snapshot: every level of the window, best first.
   */
  takeChange(): BookChange | undefined {
    const snapshot = this.#snapshot;
    const { bid, ask } = this.#sides;
    if (!snapshot && !bid.changed && !ask.changed) return undefined;
    this.#snapshot = false;
    const list = (side: Side): LevelText[] => {
      if (!snapshot && !side.changed) return [];
      side.changed = false;
      const window = side.window();
      const before = side.emitted;
      side.emitted = new Map(window);
      if (snapshot) return window;
      const out: LevelText[] = [];
      for (const key of before.keys()) if (!side.emitted.has(key)) out.push([key, '0']);
      return [...out, ...window.filter(([key, volume]) => before.get(key) !== volume)];
    };
    const bids = list(bid);
    const asks = list(ask);
    if (!snapshot && bids.length === 0 && asks.length === 0) return undefined;
    return { snapshot, bids, asks };
  }

  #uncross(side: BookSideName, num: number): void {
    const other = this.#sides[side === 'bid' ? 'ask' : 'bid'];
    for (;;) {
      const best = other.best();
      // A bid at or above the best ask (an ask at or below the best bid) crosses it.
      if (best === undefined || (side === 'bid' ? best.num > num : best.num < num)) return;
      other.set(best.price.toFixed(), best, new Decimal(0));
      this.counts.crossed += 1;
    }
  }
}
