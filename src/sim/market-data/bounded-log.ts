/**
 * An append-only log that keeps the most recent `capacity` items, oldest first, as one array so
 * readers can binary-search it. Trimming in batches (at 10 % over capacity) keeps appends O(1)
 * amortized instead of shifting the array on every push.
 */
export class BoundedLog<T> {
  readonly #capacity: number;
  #items: T[] = [];

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be >= 1');
    this.#capacity = capacity;
  }

  push(item: T): void {
    this.#items.push(item);
    if (this.#items.length > this.#capacity + Math.ceil(this.#capacity / 10)) {
      this.#items.splice(0, this.#items.length - this.#capacity);
    }
  }

  /** The kept items, oldest first; at most `capacity`. */
  items(): readonly T[] {
    const extra = this.#items.length - this.#capacity;
    return extra > 0 ? this.#items.slice(extra) : this.#items;
  }

  last(): T | undefined {
    return this.#items[this.#items.length - 1];
  }

  get size(): number {
    return Math.min(this.#items.length, this.#capacity);
  }
}
