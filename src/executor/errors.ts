import { MakerdError } from '../core/index.js';

/**
 * EXECUTOR_REDIS: Redis refused or did not answer a script of the executor (retryable).
 * EXECUTOR_LEASE_LOST: this process no longer owns the pair; its work for the pair stops.
 */
export type ExecutorErrorCode = 'EXECUTOR_REDIS' | 'EXECUTOR_LEASE_LOST';

export class ExecutorError extends MakerdError {
  declare readonly code: ExecutorErrorCode;

  constructor(code: ExecutorErrorCode, message: string, cause?: unknown) {
    super(code, cause instanceof Error ? `${message}: ${cause.message}` : message, {
      cause,
      retryable: code === 'EXECUTOR_REDIS',
    });
  }
}
