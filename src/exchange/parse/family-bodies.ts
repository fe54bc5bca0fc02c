import {
  CustodyProblemError,
  FuturesError,
  HttpStatusError,
  ResponseParseError,
  toExchangeError,
  type ExchangeWarning,
} from '../errors/index.js';
import { parseJsonBody, unwrapEnvelope, type Unwrapped } from './envelope.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Pay transfer errors are objects {severity, errorClass, type, errorMessage}. They are mapped onto
 * the spot error classes through the same string format so one catalogue serves both.
 */
export function unwrapPay(body: unknown, endpoint: string, traceId: string | undefined): Unwrapped {
  if (isObj(body) && Array.isArray(body.error)) {
    const warnings: ExchangeWarning[] = [];
    const errors: unknown[] = body.error;
    for (const e of errors) {
      if (typeof e === 'string') continue; // handled by unwrapEnvelope below
      if (!isObj(e))
        throw new ResponseParseError(endpoint, traceId, 'error', 'entry is not an object');
      const severity = str(e.severity)?.startsWith('W') === true ? 'W' : 'E';
      const category = str(e.errorClass) ?? 'Unknown';
      const message = str(e.type) ?? '';
      const extra = str(e.errorMessage);
      const raw = `${severity}${category}:${message}${extra === undefined ? '' : `:${extra}`}`;
      const parts = { severity, category, message, extra, raw } as const;
      if (severity === 'W') warnings.push({ ...parts, severity: 'W' });
      else throw toExchangeError(parts, { traceId, endpoint });
    }
    const strings = errors.filter((e): e is string => typeof e === 'string');
    const inner = unwrapEnvelope({ ...body, error: strings }, endpoint, traceId);
    return { result: inner.result, warnings: [...warnings, ...inner.warnings] };
  }
  return unwrapEnvelope(body, endpoint, traceId);
}

/** OTC history may answer with `errors`: [{field, value, type, msg, severity, errorClass}]. */
export function unwrapOtc(body: unknown, endpoint: string, traceId: string | undefined): Unwrapped {
  if (isObj(body) && Array.isArray(body.errors) && body.errors.length > 0) {
    const first: unknown = body.errors[0];
    const e = isObj(first) ? first : {};
    const category = str(e.errorClass) ?? 'General';
    const message = str(e.msg) ?? str(e.type) ?? 'Invalid arguments';
    const field = str(e.field);
    const raw = `E${category}:${message}${field === undefined ? '' : `:${field}`}`;
    throw toExchangeError(
      { severity: 'E', category, message, extra: field, raw },
      { traceId, endpoint },
    );
  }
  return unwrapEnvelope(body, endpoint, traceId);
}

/**
 * Futures bodies: success carries `result: "success"` (or, for the key check, the key details);
 * failures carry `result: "error"` with `errors` (objects or strings) or {error, message, suberror}.
 */
export function unwrapFutures(
  status: number,
  text: string,
  endpoint: string,
  traceId: string | undefined,
): Unwrapped {
  const body = parseOrStatus(status, text, endpoint, traceId);
  const failed =
    status !== 200 ||
    (isObj(body) &&
      (body.result === 'error' || (str(body.error) !== undefined && body.result === undefined)));
  if (!failed) return { result: body, warnings: [] };
  if (!isObj(body)) throw new HttpStatusError(endpoint, status, traceId, text);
  const details: string[] = [];
  if (Array.isArray(body.errors)) {
    for (const e of body.errors as unknown[]) {
      if (typeof e === 'string') details.push(e);
      else if (isObj(e))
        details.push(
          `${typeof e.code === 'number' || typeof e.code === 'string' ? e.code : ''} ${str(e.message) ?? ''}`.trim(),
        );
    }
  }
  for (const k of ['message', 'suberror'] as const) {
    const v = str(body[k]);
    if (v !== undefined) details.push(v);
  }
  throw new FuturesError(endpoint, status, traceId, str(body.error), details);
}

/** Custody: 200 with the bare result, or a problem document with its HTTP status. */
export function unwrapCustody(
  status: number,
  text: string,
  endpoint: string,
  traceId: string | undefined,
): Unwrapped {
  const body = parseOrStatus(status, text, endpoint, traceId);
  if (status === 200) return { result: body, warnings: [] };
  if (isObj(body) && typeof body.type === 'string') {
    const data = isObj(body.data) ? str(body.data.message) : undefined;
    throw new CustodyProblemError(endpoint, traceId, {
      type: body.type,
      status: typeof body.status === 'number' ? body.status : status,
      title: str(body.title),
      detail: str(body.detail) ?? data,
      instance: str(body.instance),
    });
  }
  throw new HttpStatusError(endpoint, status, traceId, text);
}

function parseOrStatus(
  status: number,
  text: string,
  endpoint: string,
  traceId: string | undefined,
): unknown {
  try {
    return parseJsonBody(text, endpoint, traceId);
  } catch (err) {
    if (status !== 200) throw new HttpStatusError(endpoint, status, traceId, text);
    throw err;
  }
}
