import { MakerdError } from '../../core/index.js';

export type Severity = 'E' | 'W';

/** The parts of `<severity><category>:<message>[:<additional text>]`. */
export interface ErrorParts {
  readonly severity: Severity;
  readonly category: string;
  readonly message: string;
  readonly extra: string | undefined;
  /** The string exactly as the exchange sent it. */
  readonly raw: string;
}

const FORMAT = /^([EW])([A-Za-z]+):([^:]*)(?::(.*))?$/s;

/**
 * Splits an exchange error string into its parts. Strings that do not follow the format (the spec
 * does not promise every one does) keep their whole text as the message.
 */
export function parseErrorString(raw: string): ErrorParts {
  const m = FORMAT.exec(raw);
  if (m === null) {
    return { severity: 'E', category: 'Unknown', message: raw, extra: undefined, raw };
  }
  const [, severity, category, message, extra] = m;
  return {
    severity: severity === 'W' ? 'W' : 'E',
    category: category ?? '',
    message: (message ?? '').trim(),
    extra: extra === undefined ? undefined : extra.trim(),
    raw,
  };
}

/** An error the exchange returned in the `error` array of its envelope. */
export class ExchangeError extends MakerdError {
  readonly severity: Severity;
  readonly category: string;
  readonly exchangeMessage: string;
  readonly extra: string | undefined;
  /** The exchange's string, verbatim: what to search for in the exchange's documentation. */
  readonly raw: string;
  readonly traceId: string | undefined;
  readonly endpoint: string;

  constructor(
    code: string,
    parts: ErrorParts,
    context: { traceId: string | undefined; endpoint: string },
    retryable = false,
  ) {
    super(code, `${parts.raw} (${context.endpoint}, trace ${context.traceId ?? 'none'})`, {
      retryable,
    });
    this.severity = parts.severity;
    this.category = parts.category;
    this.exchangeMessage = parts.message;
    this.extra = parts.extra;
    this.raw = parts.raw;
    this.traceId = context.traceId;
    this.endpoint = context.endpoint;
  }
}

/** A `W...` entry: it comes back beside the result rather than being thrown. */
export interface ExchangeWarning extends ErrorParts {
  readonly severity: 'W';
}
