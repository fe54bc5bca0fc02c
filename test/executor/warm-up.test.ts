/**
 * The executor's warm-up before a pair's first order: the pure steps run on made-up intents, and
 * nothing may leave the process (no request, no nonce taken) whatever the tier.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { parseWithSchema } from '../../src/core/index.js';
import { InProcessNonceSource, TIERS, type SpotClient } from '../../src/exchange/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import { ExecutorConfig } from '../../src/executor/index.js';
import { warmUp } from '../../src/executor/warm-up.js';
import { clientFor } from '../support/client-for.js';
import { startFakeExchange, type FakeExchange } from '../support/fake-exchange.js';
import { ETHUSD, XBTUSD } from '../support/pairs.js';

let ex: FakeExchange;
let client: SpotClient;
const floor = Date.now() + 3_600_000;

beforeEach(async () => {
  ex = await startFakeExchange();
  client = clientFor(ex, { nonceSource: new InProcessNonceSource({ floor }) });
});
afterEach(async () => {
  await client.close();
  await ex.close();
});

void describe('warmUp', () => {
  void it('sends nothing and takes no nonce, for every tier and pair', async () => {
    const config = parseWithSchema(ExecutorConfig, {}, 'executor');
    for (const tier of TIERS) {
      for (const pair of [XBTUSD, ETHUSD]) {
        warmUp({
          pair,
          instance: 3,
          limits: MATCHING_ENGINE[tier],
          config,
          client,
          nowMs: Date.now(),
        });
      }
    }
    assert.equal(ex.requests.length, 0, 'nothing crossed the wire');
    await client.balance();
    const [balance] = ex.requestsFor('Balance');
    assert.equal(balance?.nonce, String(floor + 1), 'the next call has the first nonce');
  });
});
