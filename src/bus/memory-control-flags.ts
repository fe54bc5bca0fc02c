import { InvalidInputError, type Clock } from '../core/index.js';
import { checkRole, nonEmpty } from './control-flags.js';
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

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#sinceMs = Math.floor(clock.now());
  }

  get stateSinceMs(): number | undefined {
    return this.#read ? this.#sinceMs : undefined;
  }

  halt(reason: string, by: string, nowMs: number): Promise<boolean> {
    nonEmpty(reason, 'reason');
    nonEmpty(by, 'by');
    checkTime(nowMs, 'nowMs');
    if (this.#stored.halted) {
      this.#state = this.#stored;
      return Promise.resolve(false);
    }
    this.#stored = { halted: true, reason, by, sinceMs: nowMs };
    this.#state = this.#stored;
    return Promise.resolve(true);
  }

  resume(): Promise<boolean> {
    const was = this.#stored.halted;
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

  beat(role: Role, nowMs: number, ttlMs: number): Promise<void> {
    checkRole(role);
    checkTime(nowMs, 'nowMs');
    if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
      throw new InvalidInputError('ttlMs', `must be a positive integer, got ${ttlMs}`);
    }
    this.#beats.set(role, { atMs: nowMs, untilMs: this.#clock.now() + ttlMs });
    return Promise.resolve();
  }

  alive(role: Role): Promise<number | undefined> {
    checkRole(role);
    const beat = this.#beats.get(role);
    return Promise.resolve(
      beat !== undefined && this.#clock.now() < beat.untilMs ? beat.atMs : undefined,
    );
  }

  report(role: string, status: object, ttlMs: number): Promise<void> {
    nonEmpty(role, 'role');
    this.#reports.set(role, { json: JSON.stringify(status), untilMs: this.#clock.now() + ttlMs });
    return Promise.resolve();
  }

  reported(role: string): Promise<Record<string, unknown> | undefined> {
    nonEmpty(role, 'role');
    const entry = this.#reports.get(role);
    if (entry === undefined || this.#clock.now() >= entry.untilMs)
      return Promise.resolve(undefined);
    return Promise.resolve(JSON.parse(entry.json) as Record<string, unknown>);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function checkTime(nowMs: number, field: string): void {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0) {
    throw new InvalidInputError(field, `must be a non-negative integer, got ${nowMs}`);
  }
}
