import type { HaltState } from '../../bus/index.js';
import { errorMessage, type Clock, type Log } from '../../core/index.js';

/** A halt as the report lists it. */
export interface ReplayHalt {
  readonly startMs: number;
  /** When the flag was cleared; null: it was still set at the end. */
  readonly endMs: number | null;
  readonly reason: string;
  /** Who set it: the runner's risk gate, an operator... */
  readonly by: string;
  /** Orders the first CancelAll took off, or why it failed. */
  readonly cancelled: number | string;
}

export interface ReplayHaltsOptions {
  readonly flags: { current(): HaltState };
  readonly client: { cancelAll(o?: { priority?: 'high' }): Promise<{ result: { count: number } }> };
  readonly clock: Clock;
  /** supervisor.halt_sweep_ms: a second CancelAll this much later (0: none), as live. */
  readonly sweepMs: number;
  readonly log: Log;
}

/**
 * What the supervisor does on a halt, in a replay (which runs no supervisor): when the halt flag
 * is set (the runner's risk gate sets it), every order of the key is cancelled at once and again
 * after the sweep delay, so no order rests through a halt; each halt is kept for the report.
 * `check()` runs after each step of the replay: the flag's cached state, no Redis read.
 */
export class ReplayHalts {
  readonly #o: ReplayHaltsOptions;
  readonly #halts: {
    startMs: number;
    endMs: number | null;
    reason: string;
    by: string;
    cancelled: number | string;
  }[] = [];
  #work: Promise<void> = Promise.resolve();

  constructor(options: ReplayHaltsOptions) {
    this.#o = options;
  }

  check(): void {
    const state = this.#o.flags.current();
    const open = this.#halts.at(-1);
    const halted = open !== undefined && open.endMs === null;
    if (state.halted && !halted) {
      const halt = {
        startMs: state.sinceMs ?? Math.floor(this.#o.clock.now()),
        endMs: null,
        reason: state.reason ?? 'halted',
        by: state.by ?? 'unknown',
        cancelled: 0 as number | string,
      };
      this.#halts.push(halt);
      this.#o.log.warn(
        { reason: halt.reason, by: halt.by },
        'halt flag set: cancelling every order of the key',
      );
      this.#work = this.#work.then(async () => {
        halt.cancelled = await this.#cancelAll();
        if (this.#o.sweepMs === 0) return;
        await this.#o.clock.sleep(this.#o.sweepMs);
        if (this.#o.flags.current().halted) await this.#cancelAll();
      });
    } else if (!state.halted && halted) {
      open.endMs = Math.floor(this.#o.clock.now());
    }
  }

  /** Resolves once the CancelAlls started so far have answered. */
  settled(): Promise<void> {
    return this.#work;
  }

  halts(): readonly ReplayHalt[] {
    return this.#halts.map((h) => ({ ...h }));
  }

  async #cancelAll(): Promise<number | string> {
    try {
      const { result } = await this.#o.client.cancelAll({ priority: 'high' });
      return result.count;
    } catch (err) {
      this.#o.log.error({ err: errorMessage(err) }, 'CancelAll failed');
      return `CancelAll failed: ${errorMessage(err)}`;
    }
  }
}
