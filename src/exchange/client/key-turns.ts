/**
 * Which waiting call of a key goes next: dead-man heartbeats and CancelAll (`priority: 'high'`),
 * then order entry, then everything else.
 */
export type TurnClass = 'high' | 'order-entry' | 'other';

const CLASSES: readonly TurnClass[] = ['high', 'order-entry', 'other'];

/** Gives the turn back; calling it again does nothing. */
export type ReleaseTurn = () => void;

interface Waiter {
  readonly grant: (release: ReleaseTurn) => void;
}

/**
 * One signed call of a key on the wire at a time, for a key without a nonce window (spec,
 * Authentication 3). The exchange refuses a nonce not above the last one it received, and two
 * requests in flight together on separate connections can arrive in either order; a call that
 * draws its nonce only once it holds the turn, and holds it until its answer is in, reaches the
 * exchange after every nonce drawn before it. Waiting calls go by class, first come first served
 * within one.
 */
export class KeyTurns {
  readonly #waiting: Record<TurnClass, Waiter[]> = { high: [], 'order-entry': [], other: [] };
  #held = false;

  /**
   * Resolves with the function that gives the turn back, once it is this call's. A signal that
   * fires while the call waits takes it out of the line and rejects with the signal's reason.
   */
  take(cls: TurnClass, signal?: AbortSignal): Promise<ReleaseTurn> {
    // The caller's own reason, as fetch and timers/promises reject, whatever its type.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve(this.#releaser());
    }
    return new Promise<ReleaseTurn>((resolve, reject) => {
      const queue = this.#waiting[cls];
      let detach = (): void => {};
      const waiter: Waiter = {
        grant: (release) => {
          detach();
          resolve(release);
        },
      };
      if (signal !== undefined) {
        const onAbort = (): void => {
          const at = queue.indexOf(waiter);
          if (at !== -1) queue.splice(at, 1);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        detach = () => signal.removeEventListener('abort', onAbort);
      }
      queue.push(waiter);
    });
  }

  #releaser(): ReleaseTurn {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#handOn();
    };
  }

  /** The turn goes straight to the next waiter, so no call arriving meanwhile can slip in. */
  #handOn(): void {
    for (const cls of CLASSES) {
      const next = this.#waiting[cls].shift();
      if (next !== undefined) {
        next.grant(this.#releaser());
        return;
      }
    }
    this.#held = false;
  }
}
