/**
 * Reads run one at a time, in order, each under a key (a pair, or `*` for all); a key already
 * waiting for its turn is not queued again: the run that waits reads what the newer request
 * wanted. Notifications come in bursts (one per tracker write), and two reads of one pair at once
 * could hand on the same fill twice.
 */
export class SerialRuns {
  #chain: Promise<unknown> = Promise.resolve();
  readonly #waiting = new Map<string, Promise<void>>();

  /** The run that will cover `key`: a new one, or the one already waiting. */
  run(key: string, work: () => Promise<void>): Promise<void> {
    const waiting = this.#waiting.get(key);
    if (waiting !== undefined) return waiting;
    const run = this.#chain.then(() => {
      this.#waiting.delete(key);
      return work();
    });
    this.#waiting.set(key, run);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every run queued so far has ended. */
  async idle(): Promise<void> {
    await this.#chain;
  }
}
