import { NO_ROUND_TRIP, promised, type OrderIntent, type RoundTrip } from '../core/index.js';
import type { ConsumeOptions, IntentBus, PairConsumer, PublishResult, SlotPick } from './bus.js';
import { DirectWakes } from './direct-wakes.js';
import {
  checkPair,
  checkPublishInput,
  compareSlots,
  type UnpublishedIntent,
} from './intent-codec.js';
import { checkOrdersView, type StoredOrdersView } from './orders-view.js';

/**
 * The intent bus of one process (the replay): RedisIntentBus's register (latest intent per slot,
 * generations, coalescing, take and restore by generation) and orders view over maps, its wake-ups
 * direct (DirectWakes). Same contract (test/stores).
 */
export class MemoryIntentBus implements IntentBus {
  readonly prefix: string;
  readonly #registers = new Map<string, Map<string, OrderIntent>>();
  readonly #generations = new Map<string, number>();
  readonly #wakes = new DirectWakes();
  #view: StoredOrdersView | undefined;
  readonly #trip: RoundTrip;

  /** Each call answers after one round trip (`roundTrip`), as a script or a job add does. */
  constructor(prefix: string, roundTrip: RoundTrip = NO_ROUND_TRIP) {
    this.prefix = prefix;
    this.#trip = roundTrip;
  }

  /**
   * The register is written and the pairs woken at once, the answer comes a round trip later: as
   * on Redis, where the job add goes out beside the script and a woken step's first read queues
   * behind the script's write.
   */
  async publish(intents: readonly UnpublishedIntent[]): Promise<PublishResult> {
    const checked = checkPublishInput(intents);
    const byPair: Record<string, { published: number; coalesced: number }> = {};
    const published = checked.map((intent) => {
      const key = `${intent.pair}|${intent.slot}`;
      const generation = (this.#generations.get(key) ?? 0) + 1;
      this.#generations.set(key, generation);
      const register = this.#register(intent.pair);
      const counts = (byPair[intent.pair] ??= { published: 0, coalesced: 0 });
      counts.published += 1;
      if (register.has(intent.slot)) counts.coalesced += 1;
      const entry: OrderIntent = { ...intent, generation };
      register.set(intent.slot, entry);
      return entry;
    });
    for (const pair of Object.keys(byPair)) this.#wakes.wake(pair);
    await this.#trip(1);
    return {
      published,
      coalesced: Object.values(byPair).reduce((sum, p) => sum + p.coalesced, 0),
      byPair,
    };
  }

  /** A wake-up is direct (no queue to add a job to): the step starts at once. */
  enqueue(pair: string): Promise<void> {
    return promised(() => {
      checkPair(pair, 'pair');
      this.#wakes.wake(pair);
    });
  }

  async takeSlots(pair: string, picks: readonly SlotPick[]): Promise<OrderIntent[]> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    const register = this.#registers.get(pair);
    const taken: OrderIntent[] = [];
    for (const pick of picks) {
      const entry = register?.get(pick.slot);
      if (entry === undefined || entry.generation !== pick.generation) continue;
      register?.delete(pick.slot);
      taken.push(entry);
    }
    return taken.sort(compareSlots);
  }

  async restore(pair: string, intents: readonly OrderIntent[]): Promise<string[]> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    const register = this.#register(pair);
    const slots: string[] = [];
    for (const intent of intents) {
      const latest = this.#generations.get(`${pair}|${intent.slot}`);
      if (latest !== intent.generation || register.has(intent.slot)) continue;
      register.set(intent.slot, intent);
      slots.push(intent.slot);
    }
    if (slots.length > 0) this.#wakes.wake(pair);
    return slots;
  }

  async pending(pair: string): Promise<OrderIntent[]> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    return [...(this.#registers.get(pair)?.values() ?? [])].sort(compareSlots);
  }

  async pendingCount(pair: string): Promise<number> {
    await this.#trip(1);
    checkPair(pair, 'pair');
    return this.#registers.get(pair)?.size ?? 0;
  }

  async pairsWithPending(): Promise<string[]> {
    await this.#trip(1);
    return [...this.#registers]
      .filter(([, r]) => r.size > 0)
      .map(([pair]) => pair)
      .sort();
  }

  async writeOrdersView(view: StoredOrdersView, pairs: readonly string[]): Promise<void> {
    await this.#trip(1);
    checkOrdersView(view);
    // A view older than the stored one never replaces it, as in Redis.
    if (this.#view === undefined || view.askedAtMs > this.#view.askedAtMs) {
      this.#view = JSON.parse(JSON.stringify(view)) as StoredOrdersView;
    }
    for (const pair of pairs) this.#wakes.wake(pair);
  }

  async readOrdersView(): Promise<StoredOrdersView | undefined> {
    await this.#trip(1);
    return this.#view;
  }

  consume(pair: string, step: () => Promise<unknown>, options: ConsumeOptions): PairConsumer {
    return this.#wakes.consume(pair, step, options);
  }

  pause(pair: string): Promise<void> {
    this.#wakes.pause(pair);
    return Promise.resolve();
  }

  resume(pair: string): Promise<void> {
    this.#wakes.resume(pair);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #register(pair: string): Map<string, OrderIntent> {
    let register = this.#registers.get(pair);
    if (register === undefined) {
      register = new Map();
      this.#registers.set(pair, register);
    }
    return register;
  }
}
