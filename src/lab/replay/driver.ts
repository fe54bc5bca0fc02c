import { asError } from '../../core/index.js';
import type { InFlight } from './counting-redis.js';
import type { RecordedEvents } from './recorded-events.js';
import type { ReplayClock } from './replay-clock.js';

export interface DriverProgress {
  readonly startMs: number;
  readonly endMs: number;
  readonly nowMs: number;
  /** Recorded events applied and timers woken so far. */
  readonly events: number;
}

export interface DriverOptions {
  readonly clock: ReplayClock;
  readonly events: RecordedEvents;
  /** The Redis commands in flight: the bot's only work that the clock does not pace. */
  readonly redis: InFlight;
  readonly startMs: number;
  readonly endMs: number;
  /** Runs due simulator timers (order expiry, triggers) before a recorded event lands. */
  readonly simTick: (nowMs: number) => void;
  /** After each settled step (progress, samplers). */
  readonly onStep?: (progress: DriverProgress) => void;
  /** Ends the run early, at the next step (the caller then drains and cleans up as at the end). */
  readonly signal?: AbortSignal;
}

/**
 * Moves the replay clock event by event: the next recorded event or the next timer of the bot,
 * whichever is first (a recorded event first on a tie: the market moves, then the bot sees it).
 * After each timer, the code runs until it settles: no Redis command in flight for a whole turn of
 * the event loop. A recorded event changes only the engine, which the bot reads through calls
 * that wait on the clock, so it needs no settling. Everything else the bot waits for (the
 * exchange's answers, its own timers) is on the clock, so settled means nothing can happen before
 * time moves.
 */
export class ReplayDriver {
  readonly #o: DriverOptions;
  #events = 0;

  constructor(options: DriverOptions) {
    this.#o = options;
  }

  get events(): number {
    return this.#events;
  }

  /** Runs until the recording's end, or until the signal aborts. */
  async run(): Promise<void> {
    const { clock, events, endMs, signal } = this.#o;
    await this.settle();
    while (signal?.aborted !== true) {
      const event = await events.peek(clock.now());
      const timerAt = clock.nextAt();
      const eventFirst = event !== undefined && (timerAt === undefined || event.atMs <= timerAt);
      if (eventFirst) {
        if (event.atMs > endMs) break;
        events.shift();
        clock.jumpTo(event.atMs);
        this.#o.simTick(clock.now());
        // Only the engine's book changed: no code of the bot runs before one of its timers
        // wakes (it sees the book through its polls), so there is nothing to settle.
        event.apply();
      } else {
        if (timerAt === undefined || timerAt > endMs) break;
        clock.wakeNext();
        await this.settle();
      }
      this.#events += 1;
      this.#o.onStep?.({
        startMs: this.#o.startMs,
        endMs,
        nowMs: clock.now(),
        events: this.#events,
      });
    }
    if (signal?.aborted !== true) clock.jumpTo(endMs);
  }

  /**
   * Wakes the bot's timers until `work` (stopping it) is done: a stop may wait on the clock. The
   * recording is over, so no recorded event comes in between.
   */
  async drain(work: Promise<unknown>): Promise<void> {
    const { clock } = this.#o;
    let outcome: { failed: Error | undefined } | undefined;
    work.then(
      () => (outcome = { failed: undefined }),
      (err: unknown) => (outcome = { failed: asError(err) }),
    );
    await this.settle();
    while (outcome === undefined) {
      if (clock.nextAt() === undefined)
        throw new Error('the bot is stuck stopping: nothing to wake');
      clock.wakeNext();
      await this.settle();
    }
    if (outcome.failed !== undefined) throw outcome.failed;
  }

  /** Resolves once no Redis command has been in flight for a whole event-loop turn. */
  async settle(): Promise<void> {
    const redis = this.#o.redis;
    for (;;) {
      await turn();
      if (redis.count !== 0) continue;
      await turn();
      if (redis.count === 0) return;
    }
  }
}

function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
