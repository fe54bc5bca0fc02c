/**
 * The time-weighted mean of a value that holds from one sample to the next (a step function):
 * each value counts for the time until the next sample, the latest up to the time asked about.
 * Time with no value (undefined) counts for nothing.
 */
export class StepMean {
  #weighted = 0;
  #ms = 0;
  #at: number | undefined;
  #value: number | undefined;
  #max: number | undefined;

  /** The value from `atMs` on. Earlier times than the last sample's count as the same moment. */
  set(atMs: number, value: number | undefined): void {
    this.#close(atMs);
    this.#value = value;
    if (value !== undefined)
      this.#max = this.#max === undefined ? value : Math.max(this.#max, value);
  }

  /** The mean up to `untilMs`; undefined before any time with a value. */
  mean(untilMs: number): number | undefined {
    const [weighted, ms] = this.#upTo(untilMs);
    // No time has passed with a value yet: the one moment seen is all there is.
    return ms > 0 ? weighted / ms : this.#value;
  }

  /** The time with a value, up to `untilMs`. */
  definedMs(untilMs: number): number {
    return this.#upTo(untilMs)[1];
  }

  get max(): number | undefined {
    return this.#max;
  }

  get current(): number | undefined {
    return this.#value;
  }

  #upTo(untilMs: number): [number, number] {
    const dt = this.#at === undefined ? 0 : Math.max(0, untilMs - this.#at);
    if (this.#value === undefined) return [this.#weighted, this.#ms];
    return [this.#weighted + this.#value * dt, this.#ms + dt];
  }

  #close(atMs: number): void {
    const [weighted, ms] = this.#upTo(atMs);
    this.#weighted = weighted;
    this.#ms = ms;
    this.#at = Math.max(atMs, this.#at ?? atMs);
  }
}
