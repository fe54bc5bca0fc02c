import type { Decimal } from '../../core/index.js';

/** One resting order's place in a price level's queue. */
export interface BookNode<T> {
  readonly payload: T;
  readonly level: PriceLevel<T>;
  /** Visible quantity (an iceberg's current slice). */
  qty: Decimal;
  timestampNs: bigint;
  prev: BookNode<T> | undefined;
  next: BookNode<T> | undefined;
}

/** All orders at one price, in time priority (head first). */
export interface PriceLevel<T> {
  /** Price in whole ticks: prices on the book are always tick multiples. */
  readonly ticks: number;
  readonly price: Decimal;
  head: BookNode<T> | undefined;
  tail: BookNode<T> | undefined;
  count: number;
}

/**
 * One side of a pair's book. Levels sit in an array ordered worst to best, so the best level (the
 * one matching consumes and market makers crowd around) is at the end, where removing and
 * inserting cost least; a map finds a level by tick count in O(1). Each level is a doubly linked
 * queue, so cancelling any order is O(1) apart from dropping an emptied level.
 */
export class BookSide<T> {
  readonly #levels: PriceLevel<T>[] = [];
  readonly #byTicks = new Map<number, PriceLevel<T>>();
  readonly #isBid: boolean;
  #orders = 0;

  constructor(isBid: boolean) {
    this.#isBid = isBid;
  }

  get isBid(): boolean {
    return this.#isBid;
  }

  /** Resting orders on this side. */
  get size(): number {
    return this.#orders;
  }

  get levelCount(): number {
    return this.#levels.length;
  }

  best(): PriceLevel<T> | undefined {
    return this.#levels[this.#levels.length - 1];
  }

  /** The level at a price (in whole ticks), if any order rests there. */
  at(ticks: number): PriceLevel<T> | undefined {
    return this.#byTicks.get(ticks);
  }

  /** Levels best first. */
  *levels(): Generator<PriceLevel<T>> {
    for (let i = this.#levels.length - 1; i >= 0; i--) yield this.#levels[i] as PriceLevel<T>;
  }

  /** Appends an order at the back of its price's queue. */
  add(ticks: number, price: Decimal, qty: Decimal, timestampNs: bigint, payload: T): BookNode<T> {
    let level = this.#byTicks.get(ticks);
    if (level === undefined) {
      level = { ticks, price, head: undefined, tail: undefined, count: 0 };
      this.#byTicks.set(ticks, level);
      this.#levels.splice(this.#insertionIndex(ticks), 0, level);
    }
    const node: BookNode<T> = {
      payload,
      level,
      qty,
      timestampNs,
      prev: undefined,
      next: undefined,
    };
    this.#append(level, node);
    this.#orders += 1;
    return node;
  }

  remove(node: BookNode<T>): void {
    const level = node.level;
    this.#unlink(level, node);
    this.#orders -= 1;
    if (level.count === 0) {
      this.#byTicks.delete(level.ticks);
      const i = this.#indexOf(level.ticks);
      if (i === this.#levels.length - 1) this.#levels.pop();
      else this.#levels.splice(i, 1);
    }
  }

  /** Moves an order to the back of its level's queue with a new visible quantity and time. */
  requeue(node: BookNode<T>, qty: Decimal, timestampNs: bigint): void {
    node.qty = qty;
    node.timestampNs = timestampNs;
    if (node.level.tail === node) return;
    this.#unlink(node.level, node);
    this.#append(node.level, node);
  }

  /** Orientation key: grows toward the best price on both sides. */
  #key(ticks: number): number {
    return this.#isBid ? ticks : -ticks;
  }

  /** First index whose level is better than `ticks`. */
  #insertionIndex(ticks: number): number {
    const key = this.#key(ticks);
    let lo = 0;
    let hi = this.#levels.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#key((this.#levels[mid] as PriceLevel<T>).ticks) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #indexOf(ticks: number): number {
    const i = this.#insertionIndex(ticks);
    if (this.#levels[i]?.ticks !== ticks) throw new Error(`no level at ${ticks} ticks`);
    return i;
  }

  #append(level: PriceLevel<T>, node: BookNode<T>): void {
    node.prev = level.tail;
    node.next = undefined;
    if (level.tail === undefined) level.head = node;
    else level.tail.next = node;
    level.tail = node;
    level.count += 1;
  }

  #unlink(level: PriceLevel<T>, node: BookNode<T>): void {
    if (node.prev === undefined) level.head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) level.tail = node.prev;
    else node.next.prev = node.prev;
    node.prev = undefined;
    node.next = undefined;
    level.count -= 1;
  }
}
