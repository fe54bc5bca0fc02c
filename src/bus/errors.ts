import { errorMessage, MakerdError } from '../core/index.js';

/**
 * BUS_CORRUPT: what Redis holds under a bus key is not what the bus wrote (hand edits, another
 * program, a version skew); retrying reads the same bytes, so it is not retryable.
 * BUS_UNAVAILABLE: Redis did not answer or refused the command; the same call may succeed later.
 */
export type BusErrorCode = 'BUS_CORRUPT' | 'BUS_UNAVAILABLE';

export class BusError extends MakerdError {
  declare readonly code: BusErrorCode;
  /** The Redis key involved. */
  readonly key: string;
  /** The hash field involved, when the problem is one entry of a hash. */
  readonly field: string | undefined;

  constructor(
    code: BusErrorCode,
    key: string,
    field: string | undefined,
    message: string,
    cause?: unknown,
  ) {
    super(code, message, { cause, retryable: code === 'BUS_UNAVAILABLE' });
    this.key = key;
    this.field = field;
  }
}

const SCRIPT_CORRUPT = /^(?:ERR .*?)?MAKERD_BUS_CORRUPT (.*)$/s;

/** Maps a failed Redis call on `key` to a BusError; a wrong-typed key counts as corrupt. */
export function busError(err: unknown, key: string, doing: string): BusError {
  if (err instanceof BusError) return err;
  const message = errorMessage(err);
  const scripted = SCRIPT_CORRUPT.exec(message);
  if (scripted !== null) {
    return new BusError('BUS_CORRUPT', key, undefined, `${doing}: ${scripted[1] ?? ''}`, err);
  }
  if (message.startsWith('WRONGTYPE')) {
    return new BusError(
      'BUS_CORRUPT',
      key,
      undefined,
      `${doing}: Redis key ${key} holds a value of the wrong type`,
      err,
    );
  }
  return new BusError('BUS_UNAVAILABLE', key, undefined, `${doing}: ${message}`, err);
}
