import type { ServerResponse } from 'node:http';

/**
 * JSON text for answers. Level3 timestamps are nanoseconds past 2^53, so bigints go out as bare
 * integers with every digit; the replacer only runs its rewrite when a bigint was seen.
 */
export function toJson(value: unknown): string {
  let sawBigint = false;
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    sawBigint = true;
    return `\u0000big:${v.toString()}`;
  });
  return sawBigint ? text.replace(/"\\u0000big:(-?\d+)"/g, '$1') : text;
}

/** Writes a JSON (or raw text/bytes) answer unless the connection is already gone. */
export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType?: string,
): void {
  if (res.destroyed || res.writableEnded) return;
  const isRaw = typeof body === 'string' || Buffer.isBuffer(body);
  res.statusCode = status;
  res.setHeader('content-type', contentType ?? (isRaw ? 'text/plain' : 'application/json'));
  res.end(isRaw ? body : toJson(body));
}
