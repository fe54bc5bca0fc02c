/**
 * parseJsonBigInts against the parser it replaced (lossless-json with the same number rule): equal
 * results for any JSON text, including integers beyond 2^53, long decimals, exponents and strings
 * full of digits, quotes and escapes; the same rejections as JSON.parse for broken text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parse as parseLossless } from 'lossless-json';

import { exactNumber } from '../../src/exchange/parse/exact-number.js';
import { parseJsonBigInts } from '../../src/exchange/parse/json.js';
import { readLevel3Layout } from '../../src/exchange/parse/level3-layout.js';

/** The reference: what parseJsonBigInts returned when it was lossless-json. */
const reference = (text: string): unknown => parseLossless(text, null, exactNumber);

// ---- JSON text generators ----------------------------------------------------------------------

const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });

/** Any number the JSON grammar allows, up to 30 digits either side of the dot. */
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(
      fc.constant('0'),
      fc.tuple(fc.constantFrom(...'123456789'), digits(0, 30)).map(([a, b]) => a + b),
    ),
    fc.option(digits(1, 30), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)), {
      nil: undefined,
    }),
  )
  .map(
    ([negative, int, fraction, exp]) =>
      `${negative ? '-' : ''}${int}${fraction === undefined ? '' : `.${fraction}`}` +
      (exp === undefined ? '' : exp.join('')),
  );

/** Values on the edges of the rule: 2^53, 16 digits, overflow, underflow, negative zero. */
const edgeNumber = fc.constantFrom(
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '-9007199254740993',
  '1000000000000000',
  '999999999999999',
  '9007199254740992.0',
  '18446744073709551615',
  '1716000000123456789',
  '1e15',
  '1e16',
  '1E+21',
  '0.1',
  '0.30000000000000004',
  '1.00000000000000001',
  '123456789012345.6',
  '1e400',
  '1e-400',
  '5e-324',
  '2.5e-324',
  '-0',
  '-0.0',
  '0.000000000000000',
);

const number = fc.oneof(
  numberText,
  edgeNumber,
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
);

/** One UTF-16 unit, weighted towards what could fool a scanner: digits, quotes, backslashes. */
const unit = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...'0123456789') },
  { weight: 2, arbitrary: fc.constantFrom('"', '\\', '-', '.', 'e', ':', ',', '[', '{', '}', ' ') },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\n', '\u001f', '\u2028', '\ud83d', '\ude00') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
);

/** A string as JSON text, each unit written plainly or as a \uXXXX escape. */
const stringText = fc
  .array(fc.tuple(unit, fc.boolean()), { maxLength: 24 })
  .map(
    (units) =>
      `"${units
        .map(([u, escape]) =>
          escape
            ? `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`
            : JSON.stringify(u).slice(1, -1),
        )
        .join('')}"`,
  );

const key = fc.oneof(
  fc.constantFrom('__proto__', 'timestamp', 'price', '0', '10', '1e3', ''),
  fc.string({ unit: fc.constantFrom(...'0123456789"\\abc\u0000'), maxLength: 6 }),
);

const space = fc.constantFrom('', ' ', '\n', '\t', '\r\n ');

const { value: jsonText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    stringText,
    fc.constantFrom('true', 'false', 'null'),
    tie('array'),
    tie('object'),
  ),
  array: fc
    .tuple(fc.array(tie('value'), { maxLength: 6 }), space)
    .map(([items, s]) => `[${s}${items.join(`${s},${s}`)}${s}]`),
  object: fc
    .tuple(
      // Unique keys: lossless-json refuses a repeated key, JSON.parse keeps the last.
      fc.uniqueArray(fc.tuple(key, tie('value')), { selector: ([k]) => k, maxLength: 6 }),
      space,
    )
    .map(
      ([entries, s]) =>
        `{${s}${entries.map(([k, v]) => `${JSON.stringify(k)}${s}:${s}${v}`).join(`${s},`)}${s}}`,
    ),
}));

// ---- Level3 bodies -------------------------------------------------------------------------------

interface L3Order {
  readonly price: string;
  readonly qty: string;
  readonly order_id: string;
  readonly timestamp: string;
}

const plain = fc.string({ unit: fc.constantFrom(...'0123456789.-ABCXYZ/'), maxLength: 20 });
const l3Order = (text: fc.Arbitrary<string>): fc.Arbitrary<L3Order> =>
  fc.record({
    price: text,
    qty: text,
    order_id: text,
    timestamp: fc.oneof(
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
      edgeNumber.filter((t) => /^-?\d+$/.test(t)),
    ),
  });

const orderText = (o: L3Order): string =>
  `{"price":${JSON.stringify(o.price)},"qty":${JSON.stringify(o.qty)},` +
  `"order_id":${JSON.stringify(o.order_id)},"timestamp":${o.timestamp}}`;

const level3Text = (pair: string, bids: L3Order[], asks: L3Order[]): string =>
  `{"error":[],"result":{"pair":${JSON.stringify(pair)},` +
  `"bids":[${bids.map(orderText).join(',')}],"asks":[${asks.map(orderText).join(',')}]}}`;

const level3 = (text: fc.Arbitrary<string>) =>
  fc
    .tuple(
      text,
      fc.array(l3Order(text), { maxLength: 8 }),
      fc.array(l3Order(text), { maxLength: 8 }),
    )
    .map(([pair, bids, asks]) => level3Text(pair, bids, asks));

// ---- tests -------------------------------------------------------------------------------------

describe('parseJsonBigInts', () => {
  it('parses any JSON text to what lossless-json gives under the same number rule', () => {
    fc.assert(
      fc.property(jsonText, space, (text, s) => {
        const body = `${s}${text}${s}`;
        assert.deepStrictEqual(parseJsonBigInts(body), reference(body));
      }),
      { numRuns: 2_000 },
    );
  });

  it('keeps the contract on its edges', () => {
    const text =
      '[9007199254740991, 9007199254740992, -9007199254740993, 1716000000123456789, 1e16, 1e15,' +
      ' 0.1, 1.00000000000000001, 1e400, 1e-400, -0, "1716000000123456789", "0.10000000",' +
      ' {"__proto__": 18446744073709551615, "a\\"1234567890123456789": 12345678901234567890}]';
    const value = parseJsonBigInts(text) as unknown[];
    assert.deepStrictEqual(value.slice(0, 13), [
      9007199254740991,
      9007199254740992n,
      -9007199254740993n,
      1716000000123456789n,
      '1e16',
      1e15,
      0.1,
      '1.00000000000000001',
      '1e400',
      '1e-400',
      -0,
      '1716000000123456789',
      '0.10000000',
    ]);
    const last = value[13] as object;
    assert.equal(Object.getPrototypeOf(last), Object.prototype);
    assert.deepStrictEqual(Object.entries(last), [
      ['__proto__', 18446744073709551615n],
      ['a"1234567890123456789', 12345678901234567890n],
    ]);
  });

  it('reads Level3 bodies in the usual layout directly, to what lossless-json gives', () => {
    fc.assert(
      fc.property(level3(plain), (text) => {
        const expected = reference(text);
        assert.deepStrictEqual(readLevel3Layout(text), expected);
        assert.deepStrictEqual(parseJsonBigInts(text), expected);
      }),
      { numRuns: 500 },
    );
  });

  it('reads Level3 bodies with any strings (escapes, quotes) to what lossless-json gives', () => {
    const anyString = fc.string({ unit, maxLength: 12 });
    fc.assert(
      fc.property(level3(anyString), (text) => {
        const expected = reference(text);
        const direct = readLevel3Layout(text);
        if (direct !== undefined) assert.deepStrictEqual(direct, expected);
        assert.deepStrictEqual(parseJsonBigInts(text), expected);
      }),
      { numRuns: 1_000 },
    );
  });

  it('leaves any other Level3 text to the general parser', () => {
    const o = {
      price: '67123.4',
      qty: '0.5',
      order_id: 'OABC-1',
      timestamp: '1716000000123456789',
    };
    const usual = level3Text('XBTUSD', [o], [o]);
    const others = [
      usual.replace('"qty"', ' "qty"'), // whitespace
      usual.replace('OABC-1', 'OABC\\u002d1'), // an escape
      usual.replace('"error":[]', '"error":["WGeneral:Note"]'), // a warning
      usual.replace(',"order_id"', ',"extra":1,"order_id"'), // another field
      usual.replace('"timestamp":1716000000123456789', '"timestamp":1.5e3'), // not an integer
      usual.replace(/"timestamp":(\d+)/g, '"timestamp":"$1"'), // quoted
      `${usual} `,
    ];
    for (const text of others) {
      assert.equal(readLevel3Layout(text), undefined, text);
      assert.deepStrictEqual(parseJsonBigInts(text), reference(text), text);
    }
    assert.notEqual(readLevel3Layout(usual), undefined);
  });

  it('rejects exactly the texts JSON.parse rejects, naming the original position', () => {
    const mutation = fc.tuple(
      jsonText,
      fc.nat(),
      fc.constantFrom('delete', 'insert', 'replace'),
      fc.constantFrom(...'0123456789.eE+-"\\,:[]{} x'),
    );
    fc.assert(
      fc.property(mutation, ([text, at, how, c]) => {
        const i = at % (text.length + 1);
        const broken =
          how === 'delete'
            ? text.slice(0, i) + text.slice(i + 1)
            : text.slice(0, i) + c + text.slice(how === 'insert' ? i : i + 1);
        let native: string | undefined;
        try {
          JSON.parse(broken);
        } catch (err) {
          native = (err as Error).message;
        }
        let ours: string | undefined;
        try {
          parseJsonBigInts(broken);
        } catch (err) {
          ours = (err as Error).message;
        }
        assert.equal(ours, native, broken);
      }),
      { numRuns: 2_000 },
    );
  });

  it('rejects malformed long numbers instead of reading them', () => {
    for (const text of [
      '[1.2.3.4.5.6.7.8.9.0]',
      '[01234567890123456789]',
      '{"t":12345678901234567890-}',
      '[12345678901234567890',
      '{"t":1716000000123456789,}',
    ]) {
      assert.throws(() => parseJsonBigInts(text), SyntaxError, text);
    }
  });
});
