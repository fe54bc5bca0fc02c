/**
 * Items due at given times in a binary min-heap: earliest first, and in insertion order at equal
 * times. Entries are never removed early: whoever takes one checks that it is still wanted, which
 * keeps a cancel O(1). The simulator's order timers (starttm, GTD expiry), the replay clock's
 * sleepers and the replay's market events all wait in one.
 */
export class TimerQueue<T> {
  readonly #heap: { atMs: number; seq: number; item: T }[] = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  push(atMs: number, item: T): void {
    const heap = this.#heap;
    heap.push({ atMs, seq: this.#seq++, item });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!this.#less(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  /** The earliest entry, left in place; undefined when empty. */
  peek(): { readonly atMs: number; readonly item: T } | undefined {
    return this.#heap[0];
  }

  /** The earliest item due at or before `nowMs`, removed; undefined when none is due. */
  popDue(nowMs: number): T | undefined {
    const top = this.#heap[0];
    if (top === undefined || top.atMs > nowMs) return undefined;
    return this.pop();
  }

  /** The earliest item, removed; undefined when empty. */
  pop(): T | undefined {
    const heap = this.#heap;
    const top = heap[0];
    if (top === undefined) return undefined;
    const last = heap.pop() as (typeof heap)[number];
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.#less(l, m)) m = l;
        if (r < heap.length && this.#less(r, m)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top.item;
  }

  #less(a: number, b: number): boolean {
    const x = this.#heap[a] as { atMs: number; seq: number };
    const y = this.#heap[b] as { atMs: number; seq: number };
    return x.atMs < y.atMs || (x.atMs === y.atMs && x.seq < y.seq);
  }

  #swap(a: number, b: number): void {
    const heap = this.#heap;
    const t = heap[a] as (typeof heap)[number];
    heap[a] = heap[b] as (typeof heap)[number];
    heap[b] = t;
  }
}
