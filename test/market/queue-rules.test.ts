import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec, InvalidInputError } from '../../src/core/index.js';
import { fromAhead, parseQueueRule, queueRuleName } from '../../src/market/index.js';

describe('queue rules', () => {
  it('parses linear, log, power (n = 2) and power:N, and names them back', () => {
    for (const [text, name] of [
      ['linear', 'linear'],
      [' LOG ', 'log'],
      ['power', 'power:2'],
      ['power:3', 'power:3'],
      ['power:0.5', 'power:0.5'],
      ['risk-averse', 'risk-averse'],
    ]) {
      assert.equal(queueRuleName(parseQueueRule(text as string, 'market.queue.rule')), name);
    }
  });

  it('refuses anything else naming the field', () => {
    for (const text of ['', 'fifo', 'power:0', 'power:11', 'power:-1']) {
      assert.throws(
        () => parseQueueRule(text, 'market.queue.rule'),
        (err: unknown) =>
          err instanceof InvalidInputError &&
          err.message.includes('market.queue.rule') &&
          err.message.includes('is not a queue rule'),
      );
    }
  });

  it('splits a decrease by each side’s share of f(ahead) + f(behind)', () => {
    const linear = parseQueueRule('linear', 'r');
    // 3 ahead, 1 behind: 3/4 of a decrease of 2 came from ahead.
    assert.equal(fromAhead(linear, dec(3), dec(1), dec(2)).toFixed(), '1.5');
    // power:2 weighs the larger side more: 9/10.
    assert.equal(
      fromAhead(parseQueueRule('power:2', 'r'), dec(3), dec(1), dec(2)).toFixed(),
      '1.8',
    );
    // log: ln 4 / (ln 4 + ln 2) = 2/3.
    const log = fromAhead(parseQueueRule('log', 'r'), dec(3), dec(1), dec(3));
    assert.equal(log.toDecimalPlaces(20).toFixed(), '2');
  });

  it('risk-averse takes from ahead only what behind cannot hold', () => {
    const averse = parseQueueRule('risk-averse', 'r');
    assert.equal(fromAhead(averse, dec(3), dec(1), dec('0.5')).toFixed(), '0');
    assert.equal(fromAhead(averse, dec(3), dec(1), dec(2)).toFixed(), '1');
  });

  it('never takes more than is ahead, nor leaves behind negative', () => {
    const linear = parseQueueRule('linear', 'r');
    // All of the level went: everything ahead and behind.
    assert.equal(fromAhead(linear, dec(3), dec(1), dec(4)).toFixed(), '3');
    // More went than behind holds: the rest from ahead, whatever the share says.
    assert.equal(
      fromAhead(parseQueueRule('power:5', 'r'), dec(1), dec(3), dec(3.5)).toFixed(),
      '0.5',
    );
    assert.equal(fromAhead(linear, dec(0), dec(2), dec(1)).toFixed(), '0');
    assert.equal(fromAhead(linear, dec(2), dec(2), dec(0)).toFixed(), '0');
  });
});
