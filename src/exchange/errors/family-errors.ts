import { MakerdError } from '../../core/index.js';

/**
 * Error bodies of the second document's families, which do not use the spot error strings. Each
 * keeps the HTTP status and trace id, and the body's own fields verbatim.
 */
export class FuturesError extends MakerdError {
  readonly endpoint: string;
  readonly status: number;
  readonly traceId: string | undefined;
  /** `error` of the body (e.g. `accountInactive`), when given. */
  readonly errorId: string | undefined;
  readonly details: readonly string[];

  constructor(
    endpoint: string,
    status: number,
    traceId: string | undefined,
    errorId: string | undefined,
    details: readonly string[],
  ) {
    const what = [errorId, ...details].filter((x) => x !== undefined && x !== '').join('; ');
    super(
      'FUTURES_ERROR',
      `${what || 'error'} (${endpoint}, HTTP ${status}, trace ${traceId ?? 'none'})`,
      {
        retryable: status >= 500,
      },
    );
    this.endpoint = endpoint;
    this.status = status;
    this.traceId = traceId;
    this.errorId = errorId;
    this.details = details;
  }
}

/** A custody problem document (`type`, `status`, `title`, `detail`, `instance`). */
export class CustodyProblemError extends MakerdError {
  readonly endpoint: string;
  readonly status: number;
  readonly traceId: string | undefined;
  readonly type: string;
  readonly title: string | undefined;
  readonly detail: string | undefined;
  readonly instance: string | undefined;

  constructor(
    endpoint: string,
    traceId: string | undefined,
    problem: { type: string; status: number; title?: string; detail?: string; instance?: string },
  ) {
    const kind = problem.type.replace(/^tag:[^:]+:/, '');
    super(
      `CUSTODY_${kind.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}`,
      `${problem.title ?? kind}: ${problem.detail ?? ''} (${endpoint}, HTTP ${problem.status}, trace ${traceId ?? 'none'})`,
      // The spec says retry 503 with backoff; a 500 is an upstream read failure, also transient.
      { retryable: problem.status === 503 || problem.status === 500 },
    );
    this.endpoint = endpoint;
    this.status = problem.status;
    this.traceId = traceId;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.instance = problem.instance;
  }
}
