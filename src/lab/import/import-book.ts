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

/** One BookUpdate row's content (src/lab/recording/format.ts). */
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

/** One side: the data's own levels, and the same merged onto the pair's tick. */
class Side {
  readonly raw = new Map<string, RawLevel>();
  readonly merged = new Map<string, Decimal>();
  readonly dirty = new Set<string>();
  readonly #isBid: boolean;
  #best: RawLevel | undefined;
  #bestKnown = true;

  constructor(isBid: boolean) {
    this.#isBid = isBid;
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
    const total = (this.merged.get(level.onTick) ?? new Decimal(0)).minus(before).plus(amount);
    if (total.gt(0)) this.merged.set(level.onTick, total);
    else this.merged.delete(level.onTick);
    this.dirty.add(level.onTick);
  }

  clear(): void {
    for (const key of this.merged.keys()) this.dirty.add(key);
    this.raw.clear();
    this.merged.clear();
    this.#best = undefined;
    this.#bestKnown = true;
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
  readonly #sides = { bid: new Side(true), ask: new Side(false) };
  #snapshot = false;
  readonly counts: FitCounts = { offTick: 0, crossed: 0, beforeBook: 0, lotRounded: 0 };

  constructor(grid: PairGrid) {
    this.#grid = grid;
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
   * What changed since the last call, as one BookUpdate row's content (undefined: nothing). After
   * a clear(), a snapshot: every level, best first.
   */
  takeChange(): BookChange | undefined {
    const snapshot = this.#snapshot;
    const { bid, ask } = this.#sides;
    if (!snapshot && bid.dirty.size === 0 && ask.dirty.size === 0) return undefined;
    this.#snapshot = false;
    const list = (side: Side, isBid: boolean): LevelText[] => {
      const keys = snapshot ? [...side.merged.keys()] : [...side.dirty];
      side.dirty.clear();
      const levels = keys.map((k) => ({ key: k, num: Number(k) }));
      levels.sort((a, b) => (isBid ? b.num - a.num : a.num - b.num));
      return levels.map(({ key }) => [
        key,
        this.lot(side.merged.get(key) ?? new Decimal(0)).toFixed(),
      ]);
    };
    return { snapshot, bids: list(bid, true), asks: list(ask, false) };
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
