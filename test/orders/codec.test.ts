import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeOrder, peekTxid } from '../../src/orders/codec.js';
import { restingOrder } from '../executor/plan/fixtures.js';

void describe('tracker codec: peekTxid', () => {
  const record = restingOrder('bid:0', 1_000, { txid: 'OABCDE-FGHIJ-KLMNOP' });

  void it('reads the txid of a record as encodeOrder writes it', () => {
    assert.equal(peekTxid(encodeOrder(record)), 'OABCDE-FGHIJ-KLMNOP');
  });

  void it('reads any other JSON object by parsing it', () => {
    assert.equal(peekTxid(JSON.stringify({ txid: 'T1', userref: record.userref })), 'T1');
    assert.equal(peekTxid(JSON.stringify({ ...record, txid: 'a"b' })), 'a"b');
    assert.equal(peekTxid(encodeOrder({ ...record, txid: null })), undefined);
    assert.equal(peekTxid('{not json'), undefined);
  });
});
