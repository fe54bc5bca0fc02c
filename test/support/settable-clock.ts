import type { Clock } from '../../src/core/index.js';

/** A clock that can be set anywhere, backwards included, as a stepped NTP correction would. */
export class SettableClock implements Clock {
  constructor(public ms: number) {}
  now(): number {
    return this.ms;
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
}
