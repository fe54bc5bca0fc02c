import { InvalidKeyError, KeyRejectedError } from '../errors/index.js';

/**
 * Counts consecutive `EAPI:Invalid key` answers. The exchange locks a key out after "too many
 * sequential" ones without saying how many, so the client stops well before: after `threshold`
 * it refuses to send until an operator fixes the key and resets the guard.
 */
export class KeyGuard {
  readonly threshold: number;
  #consecutive = 0;

  constructor(threshold = 3) {
    this.threshold = threshold;
  }

  check(): void {
    if (this.#consecutive >= this.threshold) throw new KeyRejectedError(this.#consecutive);
  }

  observe(err: unknown): void {
    if (err instanceof InvalidKeyError) this.#consecutive++;
  }

  accepted(): void {
    this.#consecutive = 0;
  }

  reset(): void {
    this.#consecutive = 0;
  }
}
