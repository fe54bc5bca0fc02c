import { createHmac, hash } from 'node:crypto';
import type { Credentials } from './credentials.js';

/** What a signer sees of a request: the exact bytes that go on the wire. */
export interface SigningInput {
  readonly method: 'GET' | 'POST';
  /** URI path without scheme and host, e.g. `/0/private/AddOrder`. */
  readonly path: string;
  /** Query string without `?`, empty when none. */
  readonly query: string;
  /** The body exactly as sent, empty when none. */
  readonly body: string;
  /** Decimal text of the nonce, empty when the family sends none. */
  readonly nonce: string;
}

/** Produces the authentication headers of one request. Replaceable per family. */
export interface RequestSigner {
  sign(input: SigningInput, credentials: Credentials): Record<string, string>;
}

/**
 * Spot (spec, Authentication 2): base64 HMAC-SHA512 keyed by the decoded secret over the path
 * bytes followed by SHA-256(nonce + body). Applied the same way to JSON bodies, which the spec
 * leaves unstated; the exchange family signs JSON bodies like form bodies.
 */
export const spotSigner: RequestSigner = {
  sign(input, credentials) {
    // One-shot hash: creating a Hash object costs more than hashing a short body.
    const digest = hash('sha256', input.nonce + input.body, 'buffer');
    const sign = createHmac('sha512', credentials.secretKey())
      .update(input.path)
      .update(digest)
      .digest('base64');
    return { 'API-Key': credentials.apiKey, 'API-Sign': sign };
  },
};

/**
 * Futures (`APIKey` / `Authent`): the spec does not show the computation. This is the exchange
 * family's published scheme: SHA-256 over (post data or query + nonce + endpoint path without the
 * `/derivatives` prefix), then base64 HMAC-SHA512 keyed by the decoded secret. The nonce goes in
 * a `Nonce` header. Replace via the client's `signers.futures` option if the venue differs.
 */
export const futuresSigner: RequestSigner = {
  sign(input, credentials) {
    const endpointPath = input.path.startsWith('/derivatives')
      ? input.path.slice('/derivatives'.length)
      : input.path;
    const data = input.method === 'GET' ? input.query : input.body || input.query;
    const digest = hash('sha256', data + input.nonce + endpointPath, 'buffer');
    const authent = createHmac('sha512', credentials.secretKey()).update(digest).digest('base64');
    const headers: Record<string, string> = { APIKey: credentials.apiKey, Authent: authent };
    if (input.nonce !== '') headers.Nonce = input.nonce;
    return headers;
  },
};

/**
 * Custody (`api-key` / `api-nonce` / `api-sign`): the spec does not show the computation. This
 * follows the family's spot scheme over the full request target: base64 HMAC-SHA512 keyed by the
 * decoded secret over (path + `?` + query) followed by SHA-256(nonce + body). Replace via the
 * client's `signers.custody` option if the venue differs.
 */
export const custodySigner: RequestSigner = {
  sign(input, credentials) {
    const target = input.query === '' ? input.path : `${input.path}?${input.query}`;
    const digest = hash('sha256', input.nonce + input.body, 'buffer');
    const sign = createHmac('sha512', credentials.secretKey())
      .update(target)
      .update(digest)
      .digest('base64');
    return { 'api-key': credentials.apiKey, 'api-nonce': input.nonce, 'api-sign': sign };
  },
};
