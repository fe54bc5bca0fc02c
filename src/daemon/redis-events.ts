import type { Redis } from 'ioredis';
import { dropSubscriber } from '../bus/index.js';

/**
 * A role's pub/sub messages on a connection of its own (a subscribed connection can send nothing
 * else): listeners per channel, and resync listeners told after every (re)subscription, since
 * what was published before it, or while the connection was away, is lost. The role's loops read
 * on a message and keep a slow poll as the fallback.
 */
export class RedisEvents {
  readonly #sub: Redis;
  readonly #listeners = new Map<string, ((message: string) => void)[]>();
  readonly #resync: (() => void)[] = [];

  /** `name` shows in CLIENT LIST. */
  constructor(redis: Redis, name: string) {
    this.#sub = redis.duplicate({
      lazyConnect: true,
      autoResubscribe: false,
      maxRetriesPerRequest: null,
      connectionName: name,
    });
    // Redis trouble shows in the role's other commands, which log it; here it would only repeat.
    this.#sub.on('error', () => undefined);
    this.#sub.on('message', (channel: string, message: string) => {
      for (const listener of this.#listeners.get(channel) ?? []) listener(message);
    });
  }

  on(channel: string, listener: (message: string) => void): void {
    this.#listeners.set(channel, [...(this.#listeners.get(channel) ?? []), listener]);
  }

  /**
   * Told after each subscription, the first included: what changed before it (since the role
   * last read, or while the connection was away) came with no message.
   */
  onResync(listener: () => void): void {
    this.#resync.push(listener);
  }

  /** Subscribes to every channel listened to; resolves once subscribed (or the try failed). */
  async start(): Promise<void> {
    let firstTried!: () => void;
    const tried = new Promise<void>((resolve) => (firstTried = resolve));
    const subscribe = async (): Promise<void> => {
      await this.#sub.subscribe(...this.#listeners.keys());
      for (const listener of this.#resync) listener();
    };
    this.#sub.on(
      'ready',
      () =>
        void subscribe()
          .catch(() => undefined)
          .finally(firstTried),
    );
    // A failed first try leaves the slow polls in charge until a reconnect subscribes.
    this.#sub.connect().catch(firstTried);
    await tried;
  }

  close(): Promise<void> {
    return dropSubscriber(this.#sub);
  }
}
