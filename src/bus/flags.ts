import type { Clock } from '../core/index.js';

export type Role = 'runner' | 'executor';
export const ROLES: readonly Role[] = ['runner', 'executor'];

export interface HaltState {
  readonly halted: boolean;
  readonly reason?: string;
  readonly by?: string;
  readonly sinceMs?: number;
}

/** Until the flag has been read, obeying code must assume the worst. */
export const NOT_READ: HaltState = {
  halted: true,
  reason: 'halt flag not read yet',
  by: 'makerd',
};

/**
 * The halt flag every role obeys, and the liveness beats and status reports the supervisor and
 * `makerd status` read. Two implementations keep one contract (test/stores): RedisControlFlags,
 * shared by every process on the prefix, and MemoryControlFlags for one process (the replay).
 * Fail closed: before the first read the state is halted.
 */
export interface ControlFlags {
  /** Since when the store holds makerd's state, as the last read saw; undefined before it. */
  readonly stateSinceMs: number | undefined;
  /** Sets the flag; false, keeping the first halt's reason and time, when already halted. */
  halt(reason: string, by: string, nowMs: number): Promise<boolean>;
  /** Clears the flag; the halt it cleared (`halted: false`: there was none). */
  resume(): Promise<HaltState>;
  /** Reads the flag from the store and refreshes current(). */
  read(): Promise<HaltState>;
  /** The last state seen, without I/O; halted until the first read. */
  current(): HaltState;
  /** Keeps current() fresh until unwatch(); resolves after the first read. */
  watch(intervalMs: number, clock?: Clock, onError?: (err: unknown) => void): Promise<void>;
  unwatch(): Promise<void>;
  /** Proves `role` is alive for `ttlMs`. */
  beat(role: Role, nowMs: number, ttlMs: number): Promise<void>;
  /** The time of `role`'s last beat still within its ttl, or undefined. */
  alive(role: Role): Promise<number | undefined>;
  /**
   * Tells every watcher that the exchange confirmed a CancelAll of the key at `atMs`, so the
   * executors read their orders at once instead of at their next sync. Best effort: a watcher
   * that misses it (a reconnect) keeps its own later sync.
   */
  cancelledAll(atMs: number): Promise<void>;
  /** `listener` hears of each CancelAll told by cancelledAll() while this process watches. */
  onCancelledAll(listener: (atMs: number) => void): void;
  /** Publishes a role's status for `ttlMs`. */
  report(role: string, status: object, ttlMs: number): Promise<void>;
  /** A role's last status report still within its ttl, or undefined. */
  reported(role: string): Promise<Record<string, unknown> | undefined>;
  close(): Promise<void>;
}
