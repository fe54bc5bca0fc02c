import { errorMessage, InvalidInputError, MakerdError } from '../core/index.js';

/**
 * TRACKER_CORRUPT: what Redis holds under a tracker key is not what the tracker writes (hand
 * edits, another program, a version skew); reading again reads the same bytes, so not retryable.
 * TRACKER_FENCED: the caller's lease (fence key) no longer holds its token, so it must not write;
 * nothing was written. Not retryable: the caller has to win the lease again first.
 * TRACKER_UNAVAILABLE: Redis did not answer or refused the command, or other writers kept changing
 * the keys of a transaction through every retry; the same call may succeed later. When a write
 * fails this way its outcome is unknown (Redis may have applied it just before the connection
 * broke): read back before acting on the assumption that it did not happen.
 */
export type TrackerErrorCode = 'TRACKER_CORRUPT' | 'TRACKER_FENCED' | 'TRACKER_UNAVAILABLE';

export class TrackerError extends MakerdError {
  declare readonly code: TrackerErrorCode;
  /** The Redis key involved. */
  readonly key: string;
  /** The hash field (userref) or list index involved, when the problem is one entry of a key. */
  readonly field: string | undefined;

  constructor(
    code: TrackerErrorCode,
    key: string,
    field: string | undefined,
    message: string,
    cause?: unknown,
  ) {
    super(code, message, { cause, retryable: code === 'TRACKER_UNAVAILABLE' });
    this.key = key;
    this.field = field;
  }
}

/**
 * Maps a failed Redis call on `key` to a TrackerError; a wrong-typed key counts as corrupt.
 * TrackerErrors and InvalidInputErrors (thrown by our own checks) pass through unchanged.
 */
export function trackerError(err: unknown, key: string, doing: string): Error {
  if (err instanceof TrackerError || err instanceof InvalidInputError) return err;
  const message = errorMessage(err);
  if (message.startsWith('WRONGTYPE')) {
    return new TrackerError(
      'TRACKER_CORRUPT',
      key,
      undefined,
      `${doing}: a Redis key of the tracker holds a value of the wrong type (${key} or a key read with it)`,
      err,
    );
  }
  return new TrackerError('TRACKER_UNAVAILABLE', key, undefined, `${doing}: ${message}`, err);
}
