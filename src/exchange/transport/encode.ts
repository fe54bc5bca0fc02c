/**
 * Form and query encoding as the exchange reads it: nested objects as `key[sub]`, arrays as comma
 * lists, booleans as `true`/`false`. `+` is always sent as `%2B` (the spec's note on starttm and
 * expiretm), which encodeURIComponent guarantees.
 */
export function encodeForm(params: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  for (const key of Object.keys(params)) append(parts, key, params[key]);
  return parts.join('&');
}

function append(parts: string[], key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  switch (typeof value) {
    case 'string':
      parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
      return;
    case 'number':
    case 'bigint':
    case 'boolean':
      parts.push(`${encodeURIComponent(key)}=${String(value)}`);
      return;
    case 'object':
      if (Array.isArray(value)) {
        parts.push(
          `${encodeURIComponent(key)}=${value.map((v) => encodeURIComponent(String(v))).join(',')}`,
        );
        return;
      }
      for (const [sub, v] of Object.entries(value as Record<string, unknown>)) {
        append(parts, `${key}[${sub}]`, v);
      }
      return;
    default:
      throw new TypeError(`cannot form-encode ${key}: ${typeof value}`);
  }
}

/** JSON bodies: bigints (never expected in requests) would throw in JSON.stringify, so refuse early. */
export function encodeJson(params: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(params);
}
