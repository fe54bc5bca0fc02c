import { MakerdError } from '../core/index.js';

/**
 * EXECUTOR_REDIS: Redis refused or did not answer a script of the executor (retryable).
 * EXECUTOR_LEASE_LOST: this process no longer owns the pair; its work for the pair stops.
 * EXECUTOR_NOT_SENT: an order-entry call stopped before it was signed (its plan did not hold,
 * or its write-ahead records could not be written): nothing reached the exchange.
 */
export type ExecutorErrorCode = 'EXECUTOR_REDIS' | 'EXECUTOR_LEASE_LOST' | 'EXECUTOR_NOT_SENT';

export class ExecutorError extends MakerdError {
  declare readonly code: ExecutorErrorCode;

  constructor(code: ExecutorErrorCode, message: string, cause?: unknown) {
    super(code, cause instanceof Error ? `${message}: ${cause.message}` : message, {
      cause,
      retryable: code === 'EXECUTOR_REDIS',
    });
  }
}

/** EXECUTOR_NOT_SENT, saying whether the call's ratecount points had been reserved. */
export class NotSentError extends ExecutorError {
  /** The points were taken for it in Redis and are to be given back. */
  readonly reserved: boolean;

  constructor(message: string, reserved: boolean, cause?: unknown) {
    super('EXECUTOR_NOT_SENT', message, cause);
    this.reserved = reserved;
  }
}
