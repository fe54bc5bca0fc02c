import {
  DirectWakes,
  RedisIntentBus,
  type ConsumeOptions,
  type IntentBusOptions,
  type PairConsumer,
} from '../../bus/index.js';

/**
 * The Redis intent bus with BullMQ's queue replaced by direct wake-ups: the register (Lua scripts,
 * coalescing, generations) and the orders view are the live ones; only the queue hop is not, since
 * a BullMQ Worker waits on Redis in real time and the replay's time moves only when nothing does.
 * The Redis-store replay uses it (`--stores redis`), to check the in-memory stores against Redis.
 */
export class ReplayBus extends RedisIntentBus {
  readonly #wakes = new DirectWakes();

  constructor(options: IntentBusOptions) {
    super(options);
  }

  override enqueue(pair: string): Promise<void> {
    this.#wakes.wake(pair);
    return Promise.resolve();
  }

  override consume(
    pair: string,
    step: () => Promise<unknown>,
    options: ConsumeOptions,
  ): PairConsumer {
    return this.#wakes.consume(pair, step, options);
  }

  override pause(pair: string): Promise<void> {
    this.#wakes.pause(pair);
    return Promise.resolve();
  }

  override resume(pair: string): Promise<void> {
    this.#wakes.resume(pair);
    return Promise.resolve();
  }
}
