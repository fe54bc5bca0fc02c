import { MakerdError } from '../../core/index.js';

/**
 * Raised by the client before anything is sent: after repeated `EAPI:Invalid key` answers the
 * client stops, because the next ones would earn a `EGeneral:Temporary lockout` for the key.
 */
export class KeyRejectedError extends MakerdError {
  constructor(count: number) {
    super(
      'CLIENT_KEY_REJECTED',
      `stopped sending after ${count} consecutive EAPI:Invalid key answers; check API key and secret, then call resetKeyGuard()`,
    );
  }
}

/** The caller configured no credentials but asked for a private endpoint. */
export class MissingCredentialsError extends MakerdError {
  constructor(family: string, endpoint: string) {
    super('CLIENT_MISSING_CREDENTIALS', `${endpoint} needs ${family} credentials (key and secret)`);
  }
}

/** Waiting for REST budget would exceed the caller's limit; nothing was sent. */
export class BudgetWaitTooLongError extends MakerdError {
  readonly waitMs: number;
  constructor(endpoint: string, waitMs: number, limitMs: number) {
    super(
      'CLIENT_BUDGET_WAIT',
      `${endpoint}: REST budget needs ${Math.ceil(waitMs)} ms of waiting, more than the ${limitMs} ms allowed`,
      { retryable: true },
    );
    this.waitMs = waitMs;
  }
}
