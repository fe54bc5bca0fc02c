import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { Decimal, InvalidInputError, dec } from '../../src/core/index.js';
import { XBTUSD_ENTRY } from '../support/pairs.js';
import {
  CostMinimumNotMetError,
  type ExchangeError,
  InvalidArgumentsError,
  OrderMinimumNotMetError,
  TickSizeCheckFailedError,
} from '../../src/exchange/errors/index.js';
import {
  PairRules,
  PairRulesBook,
  type CheckableOrder,
  type PairRulesSource,
  type PriceRoundingMode,
} from '../../src/exchange/pair-rules.js';

// AssetPairs entries shaped like the exchange's (only the fields the rules read, plus status).
const XBTUSD: PairRulesSource = XBTUSD_ENTRY;
const ETHXBT: PairRulesSource = {
  altname: 'ETHXBT',
  wsname: 'ETH/XBT',
  base: 'XETH',
  quote: 'XXBT',
  pair_decimals: 5,
  lot_decimals: 8,
  cost_decimals: 10,
  ordermin: '0.002',
  costmin: '0.00002',
  tick_size: '0.00001',
  status: 'online',
};
// A tick that is not a power of ten: multiples of 0.25 are not "2 decimals".
const QTRUSD: PairRulesSource = {
  altname: 'QTRUSD',
  wsname: 'QTR/USD',
  base: 'QTR',
  quote: 'ZUSD',
  pair_decimals: 2,
  lot_decimals: 4,
  cost_decimals: 4,
  ordermin: '1',
  costmin: '5',
  tick_size: '0.25',
  status: 'online',
};
// Whole-unit lots and an 8-decimal tick, like the meme coins.
const SHIBUSD: PairRulesSource = {
  altname: 'SHIBUSD',
  wsname: 'SHIB/USD',
  base: 'SHIB',
  quote: 'ZUSD',
  pair_decimals: 8,
  lot_decimals: 0,
  cost_decimals: 5,
  ordermin: '200000',
  costmin: '0.5',
  tick_size: '0.00000001',
  status: 'online',
};
// Pre-Nov-2022 shape: neither tick_size nor costmin.
const LEGACY: PairRulesSource = {
  altname: 'LEGUSD',
  base: 'LEG',
  quote: 'ZUSD',
  pair_decimals: 3,
  lot_decimals: 2,
  cost_decimals: 3,
  ordermin: '1',
};
const ZEROTICK: PairRulesSource = { ...LEGACY, altname: 'ZTUSD', pair_decimals: 2, tick_size: '0' };

const rules = {
  XBTUSD: new PairRules('XXBTZUSD', XBTUSD),
  ETHXBT: new PairRules('XETHXXBT', ETHXBT),
  QTRUSD: new PairRules('QTRUSD', QTRUSD),
  SHIBUSD: new PairRules('SHIBUSD', SHIBUSD),
  LEGACY: new PairRules('LEGUSD', LEGACY),
  ZEROTICK: new PairRules('ZTUSD', ZEROTICK),
};
type PairName = keyof typeof rules;

type ErrorClass = abstract new (...args: never[]) => ExchangeError;

function assertExchangeError(
  fn: () => unknown,
  cls: ErrorClass,
  raw: string,
  code: string,
  endpoint = 'AddOrder',
): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    assert.equal(err.raw, raw);
    assert.equal(err.code, code);
    assert.equal(err.endpoint, endpoint);
    assert.equal(err.traceId, undefined, 'a local rejection never reached the exchange');
    assert.equal(err.retryable, false);
    return true;
  });
}

function assertInvalidInput(fn: () => unknown, field: string, messagePart?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof InvalidInputError, `expected InvalidInputError, got ${String(err)}`);
    assert.equal(err.field, field);
    assert.equal(err.code, 'INVALID_INPUT');
    if (messagePart !== undefined) assert.ok(err.message.includes(messagePart), err.message);
    return true;
  });
}

void describe('PairRules construction', () => {
  void it('keeps the exchange values exactly', () => {
    const r = rules.XBTUSD;
    assert.equal(r.pairId, 'XXBTZUSD');
    assert.equal(r.altname, 'XBTUSD');
    assert.equal(r.wsname, 'XBT/USD');
    assert.equal(r.base, 'XXBT');
    assert.equal(r.quote, 'ZUSD');
    assert.equal(r.status, 'online');
    assert.equal(r.pairDecimals, 1);
    assert.equal(r.lotDecimals, 8);
    assert.equal(r.costDecimals, 5);
    assert.equal(r.ordermin.toFixed(), '0.0001');
    assert.equal(r.costmin.toFixed(), '0.5');
    assert.equal(r.tickSize.toFixed(), '0.1');
    assert.equal(r.tickSource, 'tick_size');
    assert.equal(r.lotSize.toFixed(), '0.00000001');
    assert.ok(r.ordermin instanceof Decimal);
  });

  void it('falls back to pair_decimals without a tick_size, and treats a missing costmin as none', () => {
    assert.equal(rules.LEGACY.tickSize.toFixed(), '0.001');
    assert.equal(rules.LEGACY.tickSource, 'pair_decimals');
    assert.equal(rules.LEGACY.costmin.toFixed(), '0');
    assert.equal(rules.LEGACY.wsname, undefined);
    assert.equal(rules.ZEROTICK.tickSize.toFixed(), '0.01');
    assert.equal(rules.ZEROTICK.tickSource, 'pair_decimals');
    assert.equal(rules.SHIBUSD.lotSize.toFixed(), '1');
  });

  const bad: Array<[string, Partial<PairRulesSource>, string]> = [
    ['garbage tick_size', { tick_size: 'abc' }, 'P.tick_size'],
    ['negative tick_size', { tick_size: '-0.1' }, 'P.tick_size'],
    ['exponent ordermin', { ordermin: '1e-4' }, 'P.ordermin'],
    ['negative costmin', { costmin: '-0.5' }, 'P.costmin'],
    ['fractional lot_decimals', { lot_decimals: 1.5 }, 'P.lot_decimals'],
    ['negative pair_decimals', { pair_decimals: -1 }, 'P.pair_decimals'],
    ['NaN cost_decimals', { cost_decimals: Number.NaN }, 'P.cost_decimals'],
    ['empty altname', { altname: '' }, 'P.altname'],
  ];
  for (const [name, patch, field] of bad) {
    void it(`rejects ${name}`, () => {
      assertInvalidInput(() => new PairRules('P', { ...XBTUSD, ...patch }), field);
    });
  }
});

void describe('PairRules.roundPrice', () => {
  const table: Array<[PairName, string, PriceRoundingMode, string]> = [
    // On the tick: unchanged in every mode.
    ['XBTUSD', '30000.1', 'down', '30000.1'],
    ['XBTUSD', '30000.1', 'up', '30000.1'],
    ['XBTUSD', '30000.1', 'nearest', '30000.1'],
    ['XBTUSD', '30000.10000', 'nearest', '30000.1'],
    // Between ticks; an exact half goes up under 'nearest'.
    ['XBTUSD', '30000.05', 'down', '30000'],
    ['XBTUSD', '30000.05', 'up', '30000.1'],
    ['XBTUSD', '30000.05', 'nearest', '30000.1'],
    ['XBTUSD', '30000.04999999', 'nearest', '30000'],
    ['XBTUSD', '30000.00000001', 'up', '30000.1'],
    // What 0.1 + 0.2 is in binary floating point.
    ['XBTUSD', '0.30000000000000004', 'down', '0.3'],
    ['XBTUSD', '0.30000000000000004', 'up', '0.4'],
    ['XBTUSD', '0.30000000000000004', 'nearest', '0.3'],
    // Below one tick: 'down' reaches zero.
    ['XBTUSD', '0.04', 'down', '0'],
    ['XBTUSD', '0.04', 'up', '0.1'],
    // Far more digits than a double holds (and than the 40-digit default precision).
    ['XBTUSD', '123456789012345678901234567890.15', 'down', '123456789012345678901234567890.1'],
    ['XBTUSD', '123456789012345678901234567890.15', 'up', '123456789012345678901234567890.2'],
    [
      'XBTUSD',
      '123456789012345678901234567890.123456789012345678901',
      'nearest',
      '123456789012345678901234567890.1',
    ],
    ['ETHXBT', '0.053219999', 'down', '0.05321'],
    ['ETHXBT', '0.053219999', 'up', '0.05322'],
    ['ETHXBT', '0.053219999', 'nearest', '0.05322'],
    ['ETHXBT', '0.000005', 'nearest', '0.00001'],
    ['ETHXBT', '0.000005', 'down', '0'],
    ['ETHXBT', '0.00000000000000000001', 'up', '0.00001'],
    ['QTRUSD', '10.1', 'down', '10'],
    ['QTRUSD', '10.1', 'up', '10.25'],
    ['QTRUSD', '10.1', 'nearest', '10'],
    ['QTRUSD', '10.125', 'nearest', '10.25'],
    ['QTRUSD', '10.375', 'nearest', '10.5'],
    ['QTRUSD', '10.37', 'nearest', '10.25'],
    ['QTRUSD', '10.30', 'down', '10.25'],
    ['QTRUSD', '10.30', 'up', '10.5'],
    ['QTRUSD', '10.75', 'up', '10.75'],
    ['QTRUSD', '0.3', 'down', '0.25'],
    ['QTRUSD', '999999999999999999.88', 'up', '1000000000000000000'],
    ['QTRUSD', '999999999999999999.88', 'down', '999999999999999999.75'],
    ['SHIBUSD', '0.000012345678', 'down', '0.00001234'],
    ['SHIBUSD', '0.000012345678', 'up', '0.00001235'],
    ['LEGACY', '1.23456', 'down', '1.234'],
    ['LEGACY', '1.23456', 'up', '1.235'],
    ['LEGACY', '1.2345', 'nearest', '1.235'],
    ['ZEROTICK', '1.231', 'up', '1.24'],
    ['ZEROTICK', '1.239', 'down', '1.23'],
  ];
  for (const [pair, price, mode, expected] of table) {
    void it(`${pair} ${price} ${mode} -> ${expected}`, () => {
      assert.equal(rules[pair].roundPrice(price, mode), expected);
    });
  }

  void it('takes Decimals, and 0.1 + 0.2 stays 0.3', () => {
    const p = dec('0.1').plus(dec('0.2'));
    assert.equal(rules.XBTUSD.roundPrice(p, 'down'), '0.3');
    assert.equal(rules.XBTUSD.roundPrice(p, 'up'), '0.3');
  });

  void it('never answers in exponent notation', () => {
    assert.equal(rules.SHIBUSD.roundPrice('0.00000001', 'down'), '0.00000001');
    assert.equal(rules.XBTUSD.roundPrice(dec('1').times('1e45'), 'down'), `1${'0'.repeat(45)}`);
  });

  const garbage: Array<[string, string | Decimal]> = [
    ['letters', 'abc'],
    ['empty', ''],
    ['exponent text', '1e5'],
    ['negative', '-1'],
    ['NaN Decimal', new Decimal(Number.NaN)],
    ['infinite Decimal', new Decimal(Infinity)],
  ];
  for (const [name, value] of garbage) {
    void it(`rejects a ${name} price`, () => {
      assertInvalidInput(() => rules.XBTUSD.roundPrice(value, 'nearest'), 'price');
    });
  }
});

void describe('PairRules.roundPriceForSide', () => {
  const table: Array<[PairName, string, 'buy' | 'sell', string]> = [
    ['XBTUSD', '30000.09', 'buy', '30000'],
    ['XBTUSD', '30000.01', 'sell', '30000.1'],
    ['XBTUSD', '30000.1', 'buy', '30000.1'],
    ['XBTUSD', '30000.1', 'sell', '30000.1'],
    ['QTRUSD', '10.3', 'buy', '10.25'],
    ['QTRUSD', '10.3', 'sell', '10.5'],
    ['ETHXBT', '0.0532199', 'buy', '0.05321'],
    ['ETHXBT', '0.0532101', 'sell', '0.05322'],
  ];
  for (const [pair, price, side, expected] of table) {
    void it(`${pair} ${side} ${price} -> ${expected}`, () => {
      assert.equal(rules[pair].roundPriceForSide(price, side), expected);
    });
  }
});

void describe('PairRules.roundVolume', () => {
  const table: Array<[PairName, string, string]> = [
    ['XBTUSD', '0.123456789', '0.12345678'],
    ['XBTUSD', '0.999999999999', '0.99999999'],
    ['XBTUSD', '1.00000000', '1'],
    ['XBTUSD', '0.000000009', '0'],
    ['XBTUSD', '0.30000000000000004', '0.3'],
    ['XBTUSD', '12345678901234567890.123456789', '12345678901234567890.12345678'],
    ['QTRUSD', '2.99999', '2.9999'],
    ['SHIBUSD', '1234567.89', '1234567'],
    ['SHIBUSD', '0.5', '0'],
  ];
  for (const [pair, volume, expected] of table) {
    void it(`${pair} ${volume} -> ${expected}`, () => {
      assert.equal(rules[pair].roundVolume(volume), expected);
    });
  }

  void it('takes Decimals', () => {
    assert.equal(rules.XBTUSD.roundVolume(dec('0.1').plus(dec('0.2'))), '0.3');
  });

  void it('rejects garbage and negatives', () => {
    assertInvalidInput(() => rules.XBTUSD.roundVolume('1,5'), 'volume');
    assertInvalidInput(() => rules.XBTUSD.roundVolume('-0.1'), 'volume');
  });
});

void describe('PairRules.isOnTick', () => {
  const table: Array<[PairName, string, boolean]> = [
    ['XBTUSD', '30000.1', true],
    ['XBTUSD', '30000.15', false],
    ['QTRUSD', '10.75', true],
    ['QTRUSD', '10.7', false],
    ['LEGACY', '1.234', true],
    ['LEGACY', '1.2345', false],
  ];
  for (const [pair, price, expected] of table) {
    void it(`${pair} ${price} -> ${String(expected)}`, () => {
      assert.equal(rules[pair].isOnTick(price), expected);
    });
  }
});

void describe('PairRules.check accepts', () => {
  const table: Array<[string, PairName, CheckableOrder]> = [
    [
      'a limit at exactly ordermin and costmin',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.0001', price: '5000' },
    ],
    [
      'a normal quote',
      'XBTUSD',
      { type: 'sell', ordertype: 'limit', volume: '0.5', price: '30000.1' },
    ],
    [
      'a post-only quote',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.5', price: '30000', oflags: 'post' },
    ],
    [
      'a market order without price',
      'XBTUSD',
      { type: 'buy', ordertype: 'market', volume: '0.0001' },
    ],
    [
      'a relative + price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '+0.05' },
    ],
    [
      'a relative - price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '-1.55' },
    ],
    [
      'a relative # price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '#2.03' },
    ],
    [
      'a percentage price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '1.5%' },
    ],
    [
      'a relative percentage price',
      'XBTUSD',
      { type: 'sell', ordertype: 'limit', volume: '1', price: '+0.33%' },
    ],
    [
      'a trailing stop limit with +0 offset',
      'XBTUSD',
      { type: 'sell', ordertype: 'trailing-stop-limit', volume: '1', price: '+100', price2: '+0' },
    ],
    [
      'a stop-loss-limit on the tick',
      'XBTUSD',
      {
        type: 'sell',
        ordertype: 'stop-loss-limit',
        volume: '0.01',
        price: '29000.1',
        price2: '28999.9',
      },
    ],
    [
      'viqc: volume in quote currency, below the base ordermin, more decimals than a lot',
      'XBTUSD',
      { type: 'buy', ordertype: 'market', volume: '0.000012345', oflags: 'fciq,viqc' },
    ],
    [
      'trailing zeros beyond lot_decimals',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.000100000000', price: '30000' },
    ],
    [
      'a 0.25-tick price',
      'QTRUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '10.25' },
    ],
    [
      'a tiny price and whole-unit lots',
      'SHIBUSD',
      { type: 'buy', ordertype: 'limit', volume: '200000', price: '0.00001234' },
    ],
    [
      'a cross pair quote',
      'ETHXBT',
      { type: 'sell', ordertype: 'limit', volume: '0.01', price: '0.05322' },
    ],
    [
      'a legacy pair with no costmin',
      'LEGACY',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '0.001' },
    ],
    [
      'huge numbers',
      'XBTUSD',
      {
        type: 'buy',
        ordertype: 'limit',
        volume: '12345678901234567890.12345678',
        price: '123456789012345678901234567890.1',
      },
    ],
  ];
  for (const [name, pair, order] of table) {
    void it(name, () => {
      assert.doesNotThrow(() => rules[pair].check(order));
    });
  }

  void it('leaves pair status to the exchange', () => {
    const r = new PairRules('XXBTZUSD', { ...XBTUSD, status: 'cancel_only' });
    assert.doesNotThrow(() =>
      r.check({ type: 'buy', ordertype: 'limit', volume: '0.1', price: '30000' }),
    );
  });
});

void describe('PairRules.check rejects', () => {
  const TICK = ['EOrder:Tick size check failed', 'ORDER_TICK_SIZE_CHECK_FAILED'] as const;
  const MIN = ['EOrder:Order minimum not met', 'ORDER_MINIMUM_NOT_MET'] as const;
  const COST = ['EOrder:Cost minimum not met', 'ORDER_COST_MINIMUM_NOT_MET'] as const;
  const args = (extra: string) =>
    [`EGeneral:Invalid arguments:${extra}`, 'GENERAL_INVALID_ARGUMENTS'] as const;

  const table: Array<[string, PairName, CheckableOrder, ErrorClass, readonly [string, string]]> = [
    [
      'a price between ticks',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '30000.05' },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'the float rendering of 0.1 + 0.2',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '10', price: '0.30000000000000004' },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'two decimals that are not a quarter',
      'QTRUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '10.30' },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'a cross-pair price one digit too fine',
      'ETHXBT',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '0.053215' },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'a limit price2 off the tick',
      'XBTUSD',
      {
        type: 'sell',
        ordertype: 'stop-loss-limit',
        volume: '1',
        price: '29000',
        price2: '28999.95',
      },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'a price beyond pair_decimals without tick_size',
      'LEGACY',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '1.2345' },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'an off-tick price with a huge integer part',
      'XBTUSD',
      {
        type: 'buy',
        ordertype: 'limit',
        volume: '1',
        price: '123456789012345678901234567890.10000000000000000000001',
      },
      TickSizeCheckFailedError,
      TICK,
    ],
    [
      'one satoshi under ordermin',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.00009999', price: '100000' },
      OrderMinimumNotMetError,
      MIN,
    ],
    [
      'under ordermin on a market order',
      'XBTUSD',
      { type: 'sell', ordertype: 'market', volume: '0.00001' },
      OrderMinimumNotMetError,
      MIN,
    ],
    [
      'under a whole-unit ordermin',
      'SHIBUSD',
      { type: 'buy', ordertype: 'limit', volume: '199999', price: '0.00002' },
      OrderMinimumNotMetError,
      MIN,
    ],
    [
      'one tick under costmin',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.0001', price: '4999.9' },
      CostMinimumNotMetError,
      COST,
    ],
    [
      'under costmin on a quarter-tick pair',
      'QTRUSD',
      { type: 'buy', ordertype: 'limit', volume: '1.9999', price: '2.5' },
      CostMinimumNotMetError,
      COST,
    ],
    [
      'under costmin by the limit price2 of a stop-loss-limit',
      'XBTUSD',
      {
        type: 'sell',
        ordertype: 'stop-loss-limit',
        volume: '0.0001',
        price: '6000',
        price2: '4000',
      },
      CostMinimumNotMetError,
      COST,
    ],
    [
      'a non-numeric volume',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: 'abc', price: '30000' },
      InvalidArgumentsError,
      args('volume is not a plain decimal number'),
    ],
    [
      'an empty volume',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '', price: '30000' },
      InvalidArgumentsError,
      args('volume is not a plain decimal number'),
    ],
    [
      'an exponent volume',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1e-4', price: '30000' },
      InvalidArgumentsError,
      args('volume is not a plain decimal number'),
    ],
    [
      'a volume with a plus sign',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '+1', price: '30000' },
      InvalidArgumentsError,
      args('volume is not a plain decimal number'),
    ],
    [
      'a negative volume',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '-1', price: '30000' },
      InvalidArgumentsError,
      args('volume must be positive'),
    ],
    [
      'a zero volume',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.000', price: '30000' },
      InvalidArgumentsError,
      args('volume must be positive'),
    ],
    [
      'a volume finer than lot_decimals',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '0.123456789', price: '30000' },
      InvalidArgumentsError,
      args('volume has more than 8 decimals'),
    ],
    [
      'a fractional volume on a whole-unit pair',
      'SHIBUSD',
      { type: 'buy', ordertype: 'limit', volume: '200000.5', price: '0.00002' },
      InvalidArgumentsError,
      args('volume has more than 0 decimals'),
    ],
    [
      'a zero price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '0' },
      InvalidArgumentsError,
      args('price must be positive'),
    ],
    [
      'a non-numeric price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: 'NaN' },
      InvalidArgumentsError,
      args('price is not a plain decimal number'),
    ],
    [
      'a price with whitespace',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: ' 30000' },
      InvalidArgumentsError,
      args('price is not a plain decimal number'),
    ],
    [
      'a relative price with a garbage offset',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '+abc' },
      InvalidArgumentsError,
      args('price has a relative offset that is not a plain decimal number'),
    ],
    [
      'a bare sign as price',
      'XBTUSD',
      { type: 'buy', ordertype: 'limit', volume: '1', price: '#' },
      InvalidArgumentsError,
      args('price has a relative offset that is not a plain decimal number'),
    ],
    [
      'a garbage price2',
      'XBTUSD',
      {
        type: 'sell',
        ordertype: 'stop-loss-limit',
        volume: '1',
        price: '29000',
        price2: '1,5',
      },
      InvalidArgumentsError,
      args('price2 is not a plain decimal number'),
    ],
  ];

  for (const [name, pair, order, cls, [raw, code]] of table) {
    void it(name, () => {
      assertExchangeError(() => rules[pair].check(order), cls, raw, code);
    });
  }

  void it('names the field in the extra text of Invalid arguments', () => {
    assert.throws(
      () => rules.XBTUSD.check({ type: 'buy', ordertype: 'limit', volume: 'x', price: '1' }),
      (err: unknown) => {
        assert.ok(err instanceof InvalidArgumentsError);
        assert.equal(err.exchangeMessage, 'Invalid arguments');
        assert.equal(err.extra, 'volume is not a plain decimal number');
        return true;
      },
    );
  });

  void it('reports the endpoint it was given', () => {
    assertExchangeError(
      () =>
        rules.XBTUSD.check(
          { type: 'buy', ordertype: 'limit', volume: '1', price: '30000.05' },
          'EditOrder',
        ),
      TickSizeCheckFailedError,
      ...TICK,
      'EditOrder',
    );
  });

  void it('compares cost without rounding to 40 digits', () => {
    // (0.5 - 1e-21) x (1 + 2e-21) = 0.5 - 2e-42: below costmin, yet 0.5 once rounded to 40 digits.
    const fine = new PairRules('FINE', {
      ...XBTUSD,
      altname: 'FINE',
      tick_size: '0.000000000000000000001',
      lot_decimals: 21,
      ordermin: '0',
      costmin: '0.5',
    });
    const order: CheckableOrder = {
      type: 'buy',
      ordertype: 'limit',
      price: '0.499999999999999999999',
      volume: '1.000000000000000000002',
    };
    assertExchangeError(() => fine.check(order), CostMinimumNotMetError, ...COST);
    // Just to show the trap is real with the 40-digit Decimal.
    assert.equal(
      dec(order.price ?? '')
        .times(order.volume)
        .toFixed(),
      '0.5',
    );
  });

  void describe('order of checks', () => {
    void it('malformed fields before the tick', () => {
      assertExchangeError(
        () =>
          rules.XBTUSD.check({
            type: 'buy',
            ordertype: 'limit',
            volume: '0.123456789',
            price: '30000.05',
          }),
        InvalidArgumentsError,
        ...args('volume has more than 8 decimals'),
      );
    });
    void it('the tick before ordermin', () => {
      assertExchangeError(
        () =>
          rules.XBTUSD.check({
            type: 'buy',
            ordertype: 'limit',
            volume: '0.00001',
            price: '30000.05',
          }),
        TickSizeCheckFailedError,
        ...TICK,
      );
    });
    void it('ordermin before costmin', () => {
      assertExchangeError(
        () =>
          rules.XBTUSD.check({ type: 'buy', ordertype: 'limit', volume: '0.00001', price: '1' }),
        OrderMinimumNotMetError,
        ...MIN,
      );
    });
  });
});

void describe('PairRules.checkPrice', () => {
  void it('accepts a price on the tick and relative prices', () => {
    assert.doesNotThrow(() => rules.QTRUSD.checkPrice('10.75'));
    assert.doesNotThrow(() => rules.QTRUSD.checkPrice('+0.1'));
    assert.doesNotThrow(() => rules.QTRUSD.checkPrice('2%', 'EditOrder', 'price2'));
  });
  void it('rejects an off-tick price with the endpoint it was given (EditOrder by default)', () => {
    assertExchangeError(
      () => rules.QTRUSD.checkPrice('10.7'),
      TickSizeCheckFailedError,
      'EOrder:Tick size check failed',
      'ORDER_TICK_SIZE_CHECK_FAILED',
      'EditOrder',
    );
    assertExchangeError(
      () => rules.XBTUSD.checkPrice('30000.01', 'AddOrder'),
      TickSizeCheckFailedError,
      'EOrder:Tick size check failed',
      'ORDER_TICK_SIZE_CHECK_FAILED',
    );
  });
  void it('rejects malformed prices as Invalid arguments naming the field', () => {
    assertExchangeError(
      () => rules.XBTUSD.checkPrice('abc'),
      InvalidArgumentsError,
      'EGeneral:Invalid arguments:price is not a plain decimal number',
      'GENERAL_INVALID_ARGUMENTS',
      'EditOrder',
    );
    assertExchangeError(
      () => rules.XBTUSD.checkPrice('0', 'EditOrder', 'price2'),
      InvalidArgumentsError,
      'EGeneral:Invalid arguments:price2 must be positive',
      'GENERAL_INVALID_ARGUMENTS',
      'EditOrder',
    );
  });
});

void describe('PairRulesBook', () => {
  const result: Record<string, PairRulesSource> = {
    XXBTZUSD: XBTUSD,
    XETHXXBT: ETHXBT,
    QTRUSD,
    SHIBUSD,
    LEGUSD: LEGACY,
    BROKEN: { ...XBTUSD, altname: 'BRKUSD', wsname: 'BRK/USD', tick_size: 'oops' },
  };
  const book = PairRulesBook.fromAssetPairs(result);

  void it('finds a pair by id, altname and wsname', () => {
    const byId = book.get('XXBTZUSD');
    assert.ok(byId);
    assert.equal(byId.pairId, 'XXBTZUSD');
    assert.equal(book.get('XBTUSD'), byId);
    assert.equal(book.get('XBT/USD'), byId);
    assert.equal(book.require('ETH/XBT').pairId, 'XETHXXBT');
    assert.equal(book.require('ETHXBT').pairId, 'XETHXXBT');
  });

  void it('lists the usable pairs in order', () => {
    assert.deepEqual(book.pairIds, ['XXBTZUSD', 'XETHXXBT', 'QTRUSD', 'SHIBUSD', 'LEGUSD']);
    assert.equal(book.size, 5);
  });

  void it('returns undefined for an unknown pair', () => {
    assert.equal(book.get('DOGEUSD'), undefined);
    assert.equal(book.get('xbtusd'), undefined);
    assert.equal(book.get(''), undefined);
  });

  void it('require names the known pairs for an unknown one', () => {
    assertInvalidInput(
      () => book.require('DOGEUSD'),
      'pair',
      'unknown pair "DOGEUSD"; known: XXBTZUSD, XETHXXBT, QTRUSD, SHIBUSD, LEGUSD',
    );
  });

  void it('require shows only the first few of many pairs', () => {
    const many: Record<string, PairRulesSource> = {};
    for (let i = 0; i < 8; i++) many[`P${i}`] = { ...XBTUSD, altname: `A${i}`, wsname: `W${i}` };
    const big = PairRulesBook.fromAssetPairs(many);
    assertInvalidInput(() => big.require('X'), 'pair', 'known: P0, P1, P2, P3, P4, ... (8 in all)');
  });

  void it('keeps a malformed entry out and explains it by id or alias', () => {
    assert.equal(book.get('BROKEN'), undefined);
    assert.ok(book.rejected.get('BROKEN') instanceof InvalidInputError);
    assertInvalidInput(() => book.require('BROKEN'), 'pair', 'BROKEN.tick_size');
    assertInvalidInput(() => book.require('BRK/USD'), 'pair', 'BROKEN.tick_size');
  });

  void it('an empty book says so', () => {
    assertInvalidInput(
      () => PairRulesBook.fromAssetPairs({}).require('XBTUSD'),
      'pair',
      'no pairs are known',
    );
  });

  void it('drops an alias two pairs claim, and a pair id beats another pair alias', () => {
    const clash = PairRulesBook.fromAssetPairs({
      AAA: { ...XBTUSD, altname: 'SAME', wsname: 'BBB' },
      BBB: { ...ETHXBT, altname: 'SAME', wsname: 'B/B' },
    });
    assert.equal(clash.get('SAME'), undefined);
    assert.equal(clash.get('BBB')?.pairId, 'BBB');
    assert.equal(clash.get('AAA')?.pairId, 'AAA');
    assert.equal(clash.get('B/B')?.pairId, 'BBB');
  });

  void it('rules reached through the book check orders', () => {
    assertExchangeError(
      () =>
        book
          .require('QTR/USD')
          .check({ type: 'sell', ordertype: 'limit', volume: '1', price: '5.1' }),
      TickSizeCheckFailedError,
      'EOrder:Tick size check failed',
      'ORDER_TICK_SIZE_CHECK_FAILED',
    );
  });
});
