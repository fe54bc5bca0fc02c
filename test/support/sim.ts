/**
 * A simulator on 127.0.0.1, port 0, for tests: background market off, one funded starter key,
 * and typed clients (the project's own SpotClient) so every HTTP test exercises both sides.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../src/core/index.js';
import { SpotClient, type SpotClientOptions } from '../../src/index.js';
import { startSimulator, type SimContext, type Simulator } from '../../src/sim/index.js';
import type { AccountDefinition } from '../../src/sim/state/accounts.js';

export interface KeyPair {
  readonly apiKey: string;
  readonly apiSecret: string;
}

export interface TestSim {
  readonly url: string;
  readonly ctx: SimContext;
  readonly clock: Clock;
  readonly sim: Simulator;
  /** The default funded key: ZUSD 1000000, XXBT 100, XETH 1000, tier starter. */
  readonly key: KeyPair;
  /** A typed client for `key` (or the key given), client-side pacing off, quick retries. */
  client(options?: Partial<SpotClientOptions> & { key?: KeyPair }): SpotClient;
  /** Adds a key (funded as given; every permission unless listed). */
  addAccount(def?: Partial<Omit<AccountDefinition, 'key' | 'secret'>> & { key?: string }): KeyPair;
  /** Runs due time-driven work (after advancing a ManualClock). */
  tick(): void;
  /** Admin API call; returns the parsed JSON and status. */
  admin(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export const DEFAULT_BALANCES = { ZUSD: '1000000', XXBT: '100', XETH: '1000' } as const;

export async function startTestSim(
  options: { config?: Record<string, unknown>; clock?: Clock } = {},
): Promise<TestSim> {
  const config = {
    ...options.config,
    background: { enabled: false, ...(options.config?.background as object | undefined) },
  };
  const sim = await startSimulator({
    config,
    port: 0,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const clients: SpotClient[] = [];
  const addAccount: TestSim['addAccount'] = (def = {}) => {
    const apiKey = def.key ?? `test-${randomBytes(6).toString('hex')}`;
    const apiSecret = randomBytes(64).toString('base64');
    sim.ctx.accounts.upsert(
      { balances: { ...DEFAULT_BALANCES }, ...def, key: apiKey, secret: apiSecret },
      sim.ctx.clock.now(),
    );
    return { apiKey, apiSecret };
  };
  const key = addAccount({ key: 'test-key' });
  return {
    url: sim.url,
    ctx: sim.ctx,
    clock: sim.ctx.clock,
    sim,
    key,
    client: ({ key: k = key, ...rest } = {}) => {
      const credentials = { apiKey: k.apiKey, apiSecret: k.apiSecret };
      const client = new SpotClient({
        baseUrl: sim.url,
        credentials,
        futuresCredentials: credentials,
        custodyCredentials: credentials,
        restLimiter: false,
        retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 5 },
        ...(options.clock ? { clock: options.clock } : {}),
        ...rest,
      });
      clients.push(client);
      return client;
    },
    addAccount,
    tick: () => sim.tick(),
    admin: async (method, path, body) => {
      const res = await fetch(`${sim.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await sim.close();
    },
  };
}
