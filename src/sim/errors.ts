/**
 * A refusal the exchange states in its envelope: `message` is the spec's error string, sent
 * verbatim (`EOrder:Insufficient funds`, `EGeneral:Invalid arguments:volume`). Handlers throw it;
 * the server turns it into `{"error": [message]}` and counts it by string in /_sim/state.
 */
export class SimError extends Error {
  constructor(readonly errorString: string) {
    super(errorString);
    this.name = 'SimError';
  }
}

/** `EGeneral:Invalid arguments`, with the offending field appended where that helps a client. */
export function invalidArguments(detail?: string): SimError {
  return new SimError(
    detail === undefined ? 'EGeneral:Invalid arguments' : `EGeneral:Invalid arguments:${detail}`,
  );
}

/** Errors of the non-envelope families (futures, custody) carry their own HTTP status and body. */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
    this.name = 'SimHttpError';
  }
}
