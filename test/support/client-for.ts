/**
 * Small helpers shared by the client tests: a client wired to a fake exchange's default keys,
 * and a recorder of the `makerd:exchange:signed` diagnostics channel.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer } from 'node:net';
import { SpotClient, type SpotClientOptions } from '../../src/index.js';
import type { FakeExchange } from './fake-exchange.js';

export const SIGNED_CHANNEL = 'makerd:exchange:signed';

/** A plain limit buy, for tests about how a call is sent rather than what it asks. */
export const LIMIT_BUY = {
  pair: 'XBTUSD',
  type: 'buy' as const,
  ordertype: 'limit' as const,
  volume: '1',
  price: '37500.0',
};

/**
 * A client on the fake's spot, futures and custody keys. Client-side REST pacing is off and retry
 * backoff is a few milliseconds unless a test asks otherwise, so tests stay fast.
 */
export function clientFor(ex: FakeExchange, options: Partial<SpotClientOptions> = {}): SpotClient {
  return new SpotClient({
    baseUrl: ex.url,
    credentials: { apiKey: ex.keys.spot.apiKey, apiSecret: ex.keys.spot.apiSecret },
    futuresCredentials: { apiKey: ex.keys.futures.apiKey, apiSecret: ex.keys.futures.apiSecret },
    custodyCredentials: { apiKey: ex.keys.custody.apiKey, apiSecret: ex.keys.custody.apiSecret },
    restLimiter: false,
    retry: { retries: 3, baseDelayMs: 2, maxDelayMs: 10 },
    ...options,
  });
}

export interface SignedRecord {
  readonly endpoint: string;
  readonly family: string;
  readonly nonce: string;
}

/** Records every message of the signed channel until stop() is called. */
export function recordSigned(): { readonly messages: SignedRecord[]; stop(): void } {
  const messages: SignedRecord[] = [];
  const listener = (message: unknown): void => {
    messages.push(message as SignedRecord);
  };
  subscribe(SIGNED_CHANNEL, listener);
  return {
    messages,
    stop: () => {
      unsubscribe(SIGNED_CHANNEL, listener);
    },
  };
}

/** A loopback port nothing listens on (taken and released at once). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Lets pending I/O callbacks and microtasks run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Waits until `check` holds, polling on the event loop; fails after `timeoutMs`. */
export async function until(
  check: () => boolean,
  timeoutMs = 2_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 2));
  }
}
