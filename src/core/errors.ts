/**
 * The one error base of makerd. Every failure a caller may handle carries a stable `code` (safe to
 * switch on, log and count in metrics) and says whether repeating the same action may succeed.
 */
export interface MakerdErrorOptions {
  readonly cause?: unknown;
  readonly retryable?: boolean;
}

export class MakerdError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: MakerdErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** Bad input from a caller or a configuration file: names the field and the reason. */
export class InvalidInputError extends MakerdError {
  readonly field: string;
  readonly reason: string;

  constructor(field: string, reason: string) {
    super('INVALID_INPUT', `${field}: ${reason}`);
    this.field = field;
    this.reason = reason;
  }
}

/** What to log or show of a thrown value: an Error's message, anything else as text. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What was thrown, as an Error (a promise rejected with it keeps a stack and a message). */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
