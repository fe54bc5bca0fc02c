import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { missingFromDepth, sameAmount } from '../../src/core/index.js';

void describe('sameAmount', () => {
  void it('compares decimal strings exactly', () => {
    assert.equal(sameAmount('1.50', '1.5'), true);
    assert.equal(sameAmount('10', '9.99'), false);
    // Equal as doubles, different as amounts: the exact check decides.
    assert.equal(sameAmount('0.10000000000000000001', '0.1'), false);
    assert.equal(sameAmount('50000.1', '50000.10000'), true);
  });
});

void describe('missingFromDepth', () => {
  const bids = ['49010.0', '49007.0', '48990.0'];
  const asks = ['50990.0', '51000.0'];

  void it('is true for a price within the levels shown that is none of them', () => {
    assert.equal(missingFromDepth(bids, '49009', 'buy'), true);
    assert.equal(missingFromDepth(bids, '49020', 'buy'), true, 'better than the best bid');
    assert.equal(missingFromDepth(asks, '50995', 'sell'), true);
  });

  void it('is false for a level shown, however written, or beyond the deepest level', () => {
    assert.equal(missingFromDepth(bids, '49007.0', 'buy'), false);
    assert.equal(missingFromDepth(bids, '49007', 'buy'), false);
    assert.equal(missingFromDepth(bids, '48989.9', 'buy'), false);
    assert.equal(missingFromDepth(asks, '51000.5', 'sell'), false);
    assert.equal(missingFromDepth([], '49000', 'buy'), false);
  });
});
