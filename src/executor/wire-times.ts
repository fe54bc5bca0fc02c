import type { OrderIntent } from '../core/index.js';
import type { ExecutorMetrics } from './metrics.js';

export interface WireSample {
  readonly pair: string;
  readonly action: string;
  readonly slot: string;
  readonly generation: number;
  /** From `startAtMs` to the call handed to the client. */
  readonly tickToWireMs: number;
  /**
   * What tick-to-wire counts from: the snapshot ready; the budget due, for an intent that waited
   * for ratecount points; the answer that found its order gone, for an intent placed again.
   */
  readonly from: 'snapshot' | 'budget' | 'retry';
  readonly startAtMs: number;
  /** From the intent's creation to the call handed to the client. */
  readonly intentAgeMs: number;
  /** When the call was handed to the client, on the executor's clock. */
  readonly sentAtMs: number;
}

type Ready = { readonly atMs: number; readonly from: 'budget' | 'retry' };

/** Intents remembered as waiting: the newest few, so a quote chased for hours costs nothing. */
const KEPT = 256;

/**
 * Tick-to-wire, per intent: from its snapshot, or from the moment it became free to go when that
 * was later (its ratecount budget due, or the answer that found its order gone). Waiting for the
 * exchange's budget is the design, not latency; what the executor adds after it is.
 */
export class WireTimes {
  readonly #pair: string;
  readonly #label: string;
  readonly #metrics: ExecutorMetrics;
  readonly #onWire: ((sample: WireSample) => void) | undefined;
  readonly #ready = new Map<string, Ready>();

  constructor(
    pair: string,
    label: string,
    metrics: ExecutorMetrics,
    onWire: ((sample: WireSample) => void) | undefined,
  ) {
    this.#pair = pair;
    this.#label = label;
    this.#metrics = metrics;
    this.#onWire = onWire;
  }

  /** These intents wait for budget due at `dueAtMs`. */
  deferred(intents: readonly OrderIntent[], dueAtMs: number): void {
    for (const i of intents) this.#set(i, { atMs: dueAtMs, from: 'budget' });
  }

  /** Points came back at `atMs`: intents waiting for budget may go from then. */
  released(atMs: number): void {
    for (const [key, ready] of this.#ready) {
      if (ready.from === 'budget' && ready.atMs > atMs) this.#ready.set(key, { ...ready, atMs });
    }
  }

  /** `intent` goes again from `atMs`: the answer then found its order gone. */
  retry(intent: OrderIntent, atMs: number): void {
    this.#set(intent, { atMs, from: 'retry' });
  }

  /** Observes the intents of a call handed to the client at `atMs`. */
  sent(action: string, intents: readonly OrderIntent[], atMs: number): void {
    for (const intent of intents) {
      const key = keyOf(intent);
      const ready = this.#ready.get(key);
      this.#ready.delete(key);
      const late = ready !== undefined && ready.atMs > intent.snapshotAtMs;
      // A due still ahead (it fitted early) counts from now: the call left as soon as it could.
      const startAtMs = late ? Math.min(ready.atMs, atMs) : intent.snapshotAtMs;
      const tickToWireMs = Math.max(0, atMs - startAtMs);
      const intentAgeMs = Math.max(0, atMs - intent.createdAtMs);
      this.#metrics.tickToWire.observe({ pair: this.#label }, tickToWireMs / 1000);
      this.#metrics.intentWait.observe({ pair: this.#label }, intentAgeMs / 1000);
      this.#onWire?.({
        pair: this.#pair,
        action,
        slot: intent.slot,
        generation: intent.generation,
        tickToWireMs,
        from: late ? ready.from : 'snapshot',
        startAtMs,
        intentAgeMs,
        sentAtMs: atMs,
      });
    }
  }

  #set(intent: OrderIntent, ready: Ready): void {
    const key = keyOf(intent);
    this.#ready.delete(key);
    this.#ready.set(key, ready);
    for (const oldest of this.#ready.keys()) {
      if (this.#ready.size <= KEPT) break;
      this.#ready.delete(oldest);
    }
  }
}

/** Intents keyed by slot and generation (one intent per generation of a slot). */
export function keyOf(i: OrderIntent): string {
  return `${i.slot}#${i.generation}`;
}
