/** A binary heap: the replay's clock and its event queue each hold many entries and take the least. */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #before: (a: T, b: T) => boolean;

  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const h = this.#items;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#before(h[i] as T, h[parent] as T)) break;
      [h[i], h[parent]] = [h[parent] as T, h[i] as T];
      i = parent;
    }
  }

  pop(): T | undefined {
    const h = this.#items;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.#before(h[l] as T, h[m] as T)) m = l;
      if (r < h.length && this.#before(h[r] as T, h[m] as T)) m = r;
      if (m === i) return top;
      [h[i], h[m]] = [h[m] as T, h[i] as T];
      i = m;
    }
  }
}
