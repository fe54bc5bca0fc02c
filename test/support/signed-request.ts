/**
 * A spot private request signed from the spec's recipe inside the test (not with src/), so tests
 * of the simulator's door control exactly which bytes, nonce and signature go out.
 */
import { createHash, createHmac } from 'node:crypto';
import { rawRequest, type RawResponse } from './raw-request.js';

export interface SignedOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  /** Defaults to a strictly increasing value per process. */
  readonly nonce?: string | number;
  /** Send JSON instead of a form. */
  readonly json?: boolean;
  /** Sign with this secret instead (a wrong signature). */
  readonly signWith?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

let lastNonce = Date.now() * 1000;

export function nextNonce(): string {
  lastNonce += 1;
  return String(lastNonce);
}

export function signedPost(
  baseUrl: string,
  name: string,
  fields: Record<string, unknown>,
  o: SignedOptions,
): Promise<RawResponse> {
  const path = `/0/private/${name}`;
  const nonce = String(o.nonce ?? nextNonce());
  const body = o.json
    ? JSON.stringify({ nonce, ...fields })
    : new URLSearchParams(
        Object.entries({ nonce, ...fields }).map(([k, v]): [string, string] => [k, String(v)]),
      ).toString();
  const digest = createHash('sha256')
    .update(nonce + body)
    .digest();
  const sign = createHmac('sha512', Buffer.from(o.signWith ?? o.apiSecret, 'base64'))
    .update(path)
    .update(digest)
    .digest('base64');
  return rawRequest(baseUrl, {
    method: 'POST',
    path,
    headers: {
      'user-agent': 'makerd-test',
      'content-type': o.json ? 'application/json' : 'application/x-www-form-urlencoded',
      'api-key': o.apiKey,
      'api-sign': sign,
      ...o.headers,
    },
    body,
  });
}

/** The envelope's error array of a response (empty when none). */
export function errorsOf(res: RawResponse): string[] {
  const body = res.json as { error?: unknown } | undefined;
  return Array.isArray(body?.error) ? (body.error as string[]) : [];
}
