import { silentLog, sleepToNext, type Clock, type Log } from '../core/index.js';

/** How often the watch PINGs the shared connection. */
export const PING_EVERY_MS = 1_000;
/** A PING unanswered this long opens an episode: Redis is not answering. */
export const NOT_ANSWERING_AFTER_MS = 2_000;

export interface RedisWatchOptions {
  /** The process's shared connection: a PING queues behind whatever else waits on it. */
  readonly redis: { ping(): Promise<unknown> };
  readonly clock: Clock;
  readonly log?: Log;
}

/**
 * Says when Redis stops answering (a hung server, `CLIENT PAUSE`, a long fork, a lost network):
 * without it every role just waits on its commands and the log is silent. One PING at a time on
 * the shared connection; one warning per episode once it has waited NOT_ANSWERING_AFTER_MS, and
 * one line when Redis answers again, each naming how long.
 */
export class RedisWatch {
  readonly #o: RedisWatchOptions;
  readonly #log: Log;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;
  /** When the oldest PING not yet answered was sent: the episode's start. */
  #waitingSinceMs: number | undefined;
  #inFlight = false;
  #warned = false;

  constructor(options: RedisWatchOptions) {
    this.#o = options;
    this.#log = options.log ?? silentLog;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /**
   * How long Redis has not answered a PING, once past NOT_ANSWERING_AFTER_MS; undefined while it
   * answers.
   */
  notAnsweringForMs(): number | undefined {
    if (this.#waitingSinceMs === undefined) return undefined;
    const ms = this.#o.clock.now() - this.#waitingSinceMs;
    return ms >= NOT_ANSWERING_AFTER_MS ? Math.round(ms) : undefined;
  }

  async close(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const { clock } = this.#o;
    while (!this.#stop.signal.aborted) {
      this.#check();
      try {
        await sleepToNext(clock, PING_EVERY_MS, this.#stop.signal);
      } catch {
        return;
      }
    }
  }

  #check(): void {
    const forMs = this.notAnsweringForMs();
    if (forMs !== undefined && !this.#warned) {
      this.#warned = true;
      this.#log.warn(
        { notAnsweringForMs: forMs },
        'Redis not answering: every role waits on it; /status shows its last report',
      );
    }
    if (this.#inFlight) return;
    this.#inFlight = true;
    this.#waitingSinceMs ??= this.#o.clock.now();
    // A refused PING (the connection closing) proves nothing either way: the next one decides.
    this.#o.redis.ping().then(
      () => this.#answered(),
      () => (this.#inFlight = false),
    );
  }

  #answered(): void {
    this.#inFlight = false;
    const since = this.#waitingSinceMs;
    this.#waitingSinceMs = undefined;
    if (!this.#warned || since === undefined) return;
    this.#warned = false;
    this.#log.info(
      { notAnsweredForMs: Math.round(this.#o.clock.now() - since) },
      'Redis answering again',
    );
  }
}
