import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from '../../../src/core/index.js';
import {
  priceDirection,
  resolvePrice,
  trailingStop,
  triggerDirection,
} from '../../../src/sim/engine/prices.js';
import { px } from './support.js';

const tick = new Decimal('0.1');
const last = new Decimal('60000');
const resolve = (text: string, dir: 'up' | 'down'): string =>
  resolvePrice(px(text), last, dir, tick).toFixed();

void describe('relative prices', () => {
  void it('+ adds, - subtracts, # follows the direction, % is a share of the last price', () => {
    assert.equal(resolve('+12.5', 'down'), '60012.5');
    assert.equal(resolve('-12.5', 'up'), '59987.5');
    assert.equal(resolve('#100', 'down'), '59900');
    assert.equal(resolve('#100', 'up'), '60100');
    assert.equal(resolve('+1%', 'up'), '60600');
    assert.equal(resolve('#0.5%', 'down'), '59700');
    // Absolute prices are not rounded: they are tick-checked elsewhere.
    assert.equal(resolve('60000.05', 'down'), '60000.05');
  });

  void it('rounds to the tick toward the passive side', () => {
    // 60000 × 1.00001 = 60000.6; × 0.99999 = 59999.4; 0.0001 % → 0.06
    assert.equal(resolve('+0.0001%', 'down'), '60000');
    assert.equal(resolve('+0.0001%', 'up'), '60000.1');
    assert.equal(resolve('-0.0001%', 'down'), '59999.9');
    assert.equal(resolve('-0.0001%', 'up'), '60000');
  });

  void it('# direction and rounding: limits passive, stops on the side they fire', () => {
    assert.deepEqual(
      (
        [
          ['limit', 'buy'],
          ['limit', 'sell'],
          ['stop-loss', 'buy'],
          ['stop-loss', 'sell'],
          ['take-profit', 'buy'],
          ['take-profit', 'sell'],
          ['trailing-stop-limit', 'sell'],
        ] as const
      ).map(([t, s]) => `${t}/${s}:${priceDirection(t, s)}:${triggerDirection(t, s)}`),
      [
        'limit/buy:down:up',
        'limit/sell:up:down',
        'stop-loss/buy:up:up',
        'stop-loss/sell:down:down',
        'take-profit/buy:down:down',
        'take-profit/sell:up:up',
        'trailing-stop-limit/sell:down:down',
      ],
    );
  });

  void it('trailing stops sit the offset away from the extreme, rounded to fire no earlier', () => {
    const off = px('+0.15%');
    if (off.kind !== 'rel') throw new Error('relative expected');
    // 60000.1 × 0.0015 = 90.00015
    assert.equal(trailingStop('sell', new Decimal('60000.1'), off, tick).toFixed(), '59910');
    assert.equal(trailingStop('buy', new Decimal('60000.1'), off, tick).toFixed(), '60090.2');
  });
});
