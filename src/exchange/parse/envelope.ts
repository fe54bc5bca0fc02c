import {
  ResponseParseError,
  parseErrorString,
  toExchangeError,
  type ExchangeWarning,
} from '../errors/index.js';

export interface Unwrapped {
  readonly result: unknown;
  readonly warnings: ExchangeWarning[];
}

/**
 * The spot envelope (spec, Envelope and Errors): `error` is an array of strings; any `E...` entry
 * fails the call with its typed error; `W...` entries come back beside the result.
 */
export function unwrapEnvelope(
  body: unknown,
  endpoint: string,
  traceId: string | undefined,
): Unwrapped {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ResponseParseError(endpoint, traceId, '$', 'body is not a JSON object');
  }
  const envelope = body as { error?: unknown; result?: unknown };
  const errors = envelope.error ?? [];
  if (!Array.isArray(errors)) {
    throw new ResponseParseError(endpoint, traceId, 'error', 'is not an array');
  }
  const warnings: ExchangeWarning[] = [];
  for (let i = 0; i < errors.length; i++) {
    const entry: unknown = errors[i];
    if (typeof entry !== 'string') {
      throw new ResponseParseError(endpoint, traceId, `error/${i}`, 'is not a string');
    }
    const parts = parseErrorString(entry);
    if (parts.severity === 'W') {
      warnings.push({ ...parts, severity: 'W' });
    } else {
      throw toExchangeError(parts, { traceId, endpoint });
    }
  }
  if (!('result' in envelope)) {
    throw new ResponseParseError(endpoint, traceId, 'result', 'is missing');
  }
  return { result: envelope.result, warnings };
}

export function parseJsonBody(
  text: string,
  endpoint: string,
  traceId: string | undefined,
  parse: (text: string) => unknown = JSON.parse,
): unknown {
  try {
    return parse(text);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ResponseParseError(endpoint, traceId, '$', `not JSON: ${reason}`);
  }
}
