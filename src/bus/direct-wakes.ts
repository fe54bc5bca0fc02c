import { asError } from '../core/index.js';
import type { ConsumeOptions, PairConsumer } from './bus.js';

interface Consumer {
  readonly step: () => Promise<unknown>;
  readonly options: ConsumeOptions;
  running: Promise<void> | undefined;
  closed: boolean;
}

/**
 * Wake-ups of one process, with the queue's semantics and without a queue: one step at a time per
 * pair; a wake while a step runs makes exactly one more step follow (BullMQ's deduplication with
 * keepLastIfActive); a wake while no one consumes the pair, or while it is paused, waits for the
 * consumer or the resume. The replay's buses use it, so their steps run on the replay's clock.
 */
export class DirectWakes {
  readonly #consumers = new Map<string, Consumer>();
  readonly #waiting = new Set<string>();
  readonly #paused = new Set<string>();

  wake(pair: string): void {
    const c = this.#consumers.get(pair);
    if (c === undefined || c.closed || this.#paused.has(pair)) {
      this.#waiting.add(pair);
      return;
    }
    if (c.running !== undefined) {
      this.#waiting.add(pair);
      return;
    }
    this.#waiting.delete(pair);
    c.running = c
      .step()
      .then(() => undefined)
      .catch((err: unknown) => c.options.onError(asError(err), 'step'))
      .finally(() => {
        c.running = undefined;
        if (this.#waiting.has(pair) && !c.closed) this.wake(pair);
      });
  }

  consume(pair: string, step: () => Promise<unknown>, options: ConsumeOptions): PairConsumer {
    const consumer: Consumer = { step, options, running: undefined, closed: false };
    this.#consumers.set(pair, consumer);
    if (this.#waiting.has(pair)) this.wake(pair);
    return {
      close: async () => {
        consumer.closed = true;
        if (this.#consumers.get(pair) === consumer) this.#consumers.delete(pair);
        await consumer.running;
      },
    };
  }

  pause(pair: string): void {
    this.#paused.add(pair);
  }

  resume(pair: string): void {
    this.#paused.delete(pair);
    if (this.#waiting.has(pair)) this.wake(pair);
  }
}
