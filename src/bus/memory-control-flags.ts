import { InvalidInputError, promised, type Clock } from '../core/index.js';
import { checkRole, checkTime, checkTtl, nonEmpty } from './control-flags.js';
import { NOT_READ, type ControlFlags, type HaltState, type Role } from './flags.js';

/**
 * The halt flag, beats and status reports of one process (the replay): RedisControlFlags'
 * contract (test/stores) with keys in memory expiring on the injected clock. A store in memory
 * cannot lose its state behind the process's back, so there is no epoch to watch; watch() only
 * makes current() follow read() as the Redis one does.
 */
export class MemoryControlFlags implements ControlFlags {
  readonly #clock: Clock;
  readonly #sinceMs: number;
  #stored: HaltState = { halted: false };
  #state: HaltState = NOT_READ;
  #read = false;
  readonly #beats = new Map<Role, { atMs: number; untilMs: number }>();
  readonly #reports = new Map<string, { json: string; untilMs: number }>();
  readonly #cancelledAllListeners: ((atMs: number) => void)[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#sinceMs = Math.floor(clock.now());
  }

  get stateSinceMs(): number | undefined {
    return this.#read ? this.#sinceMs : undefined;
  }

  halt(reason: string, by: string, nowMs: number): Promise<boolean> {
    return promised(() => {
      nonEmpty(reason, 'reason');
      nonEmpty(by, 'by');
      checkTime(nowMs, 'nowMs');
      if (this.#stored.halted) {
        this.#state = this.#stored;
        return false;
      }
      this.#stored = { halted: true, reason, by, sinceMs: nowMs };
      this.#state = this.#stored;
      return true;
    });
  }

  resume(): Promise<HaltState> {
    const was = this.#stored;
    this.#stored = { halted: false };
    this.#state = this.#stored;
    return Promise.resolve(was);
  }

  read(): Promise<HaltState> {
    this.#read = true;
    this.#state = this.#stored;
    return Promise.resolve(this.#state);
  }

  current(): HaltState {
    return this.#state;
  }

  async watch(intervalMs: number): Promise<void> {
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) {
      throw new InvalidInputError('intervalMs', `must be a positive number, got ${intervalMs}`);
    }
    // Every write is seen at once by the one process: reading once keeps current() right.
    await this.read();
  }

  unwatch(): Promise<void> {
    return Promise.resolve();
  }

  cancelledAll(atMs: number): Promise<void> {
    return promised(() => {
      checkTime(atMs, 'atMs');
      for (const listener of this.#cancelledAllListeners) listener(atMs);
    });
  }

  onCancelledAll(listener: (atMs: number) => void): void {
    this.#cancelledAllListeners.push(listener);
  }

  beat(role: Role, nowMs: number, ttlMs: number): Promise<void> {
    return promised(() => {
      checkRole(role);
      checkTime(nowMs, 'nowMs');
      checkTtl(ttlMs);
      this.#beats.set(role, { atMs: nowMs, untilMs: this.#clock.now() + ttlMs });
    });
  }

  alive(role: Role): Promise<number | undefined> {
    return promised(() => {
      checkRole(role);
      const beat = this.#beats.get(role);
      return beat !== undefined && this.#clock.now() < beat.untilMs ? beat.atMs : undefined;
    });
  }

  report(role: string, status: object, ttlMs: number): Promise<void> {
    return promised(() => {
      nonEmpty(role, 'role');
      checkTtl(ttlMs);
      const json = JSON.stringify(status);
      this.#reports.set(role, { json, untilMs: this.#clock.now() + ttlMs });
    });
  }

  reported(role: string): Promise<Record<string, unknown> | undefined> {
    return promised(() => {
      nonEmpty(role, 'role');
      const entry = this.#reports.get(role);
      if (entry === undefined || this.#clock.now() >= entry.untilMs) return undefined;
      return JSON.parse(entry.json) as Record<string, unknown>;
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
