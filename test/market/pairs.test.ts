import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InvalidInputError } from '../../src/core/index.js';
import type { AssetPair } from '../../src/exchange/index.js';
import { loadPairs, resolvePairs } from '../../src/market/index.js';
import { startTestSim, type TestSim } from '../support/sim.js';

describe('loadPairs against the simulator', () => {
  let sim: TestSim;
  before(async () => {
    sim = await startTestSim();
  });
  after(() => sim.close());

  it('accepts the id, the altname or the wsname, in the order asked, once each', async () => {
    const pairs = await loadPairs(sim.client(), ['xbt/usd', 'ETHUSD', 'XXBTZUSD', 'XETHXXBT']);
    assert.deepEqual(
      pairs.map((p) => p.id),
      ['XXBTZUSD', 'XETHZUSD', 'XETHXXBT'],
    );
    const [xbt, , ethxbt] = pairs;
    assert.equal(xbt?.altname, 'XBTUSD');
    assert.equal(xbt?.base, 'XXBT');
    assert.equal(xbt?.quote, 'ZUSD');
    assert.equal(xbt?.tickSize.toFixed(), '0.1');
    assert.equal(xbt?.priceDecimals, 1);
    assert.equal(xbt?.lotDecimals, 8);
    assert.equal(xbt?.orderMin.toFixed(), '0.00005');
    assert.equal(xbt?.costMin?.toFixed(), '0.5');
    assert.equal(ethxbt?.tickSize.toFixed(), '0.00001');
    assert.ok(Object.isFrozen(xbt));
  });

  it('names the unknown pair and the ones that exist', async () => {
    await assert.rejects(loadPairs(sim.client(), ['XBTUSD', 'FOO']), (err: unknown) => {
      assert.ok(err instanceof InvalidInputError);
      assert.equal(err.field, 'pairs');
      assert.equal(err.message, 'pairs: unknown pair "FOO"; known: ETHUSD, ETHXBT, XBTUSD');
      return true;
    });
  });
});

describe('resolvePairs', () => {
  it('reads a zero costmin as no minimum', () => {
    const raw: AssetPair = {
      altname: 'ABCUSD',
      base: 'ABC',
      quote: 'ZUSD',
      cost_decimals: 2,
      pair_decimals: 3,
      lot_decimals: 4,
      ordermin: '1',
      costmin: '0',
      tick_size: '0.001',
    };
    assert.equal(resolvePairs({ ABCUSD: raw }, ['ABCUSD'])[0]?.costMin, undefined);
  });
});
