import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorFromString, ThrottledError } from '../../src/exchange/errors/index.js';
import { classifyFailure, errorLabel, pairLabel } from '../../src/executor/index.js';

const context = { traceId: undefined, endpoint: 'AddOrder' };

void describe('executor metric labels', () => {
  void it('labels a throttle by its family, without the timestamp, the reason kept whole', () => {
    const err = errorFromString('EService:Throttled: 1795321540', context);
    assert.ok(err instanceof ThrottledError);
    const failure = classifyFailure(err);
    assert.equal(failure.reason, 'EService:Throttled: 1795321540');
    assert.equal(errorLabel(failure.reason), 'EService:Throttled');
    // Another throttle, another time: the same series.
    assert.equal(errorLabel('EService:Throttled: 1795321999'), 'EService:Throttled');
    assert.equal(errorLabel('EService:Throttled:1795321540'), 'EService:Throttled');
  });

  void it('keeps an exchange error without detail as it is', () => {
    const failure = classifyFailure(errorFromString('EOrder:Insufficient funds', context));
    assert.equal(failure.reason, 'EOrder:Insufficient funds');
    assert.equal(errorLabel(failure.reason), 'EOrder:Insufficient funds');
    assert.equal(errorLabel('EOrder:Unknown order'), 'EOrder:Unknown order');
  });

  void it('takes the first two colon-separated parts of any exchange error string', () => {
    assert.equal(errorLabel('EOrder:Invalid order:Order is not open'), 'EOrder:Invalid order');
    assert.equal(
      errorLabel('EGeneral:Invalid arguments:volume minimum not met'),
      'EGeneral:Invalid arguments',
    );
    assert.equal(errorLabel('EService:Unavailable'), 'EService:Unavailable');
  });

  void it('keeps an error code without a colon as its own label', () => {
    assert.equal(errorLabel('TRANSPORT_CONNECT'), 'TRANSPORT_CONNECT');
    assert.equal(errorLabel(''), '');
  });

  void it('labels a pair by its altname, not its exchange id', () => {
    assert.equal(pairLabel({ altname: 'XBTUSD' }), 'XBTUSD');
  });
});
