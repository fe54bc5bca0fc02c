import { exactInteger } from './exact-number.js';

/**
 * Level3 answers are what replay parses most, and even JSON.parse alone costs ~80 % of the
 * ccxt-style parse (quote the numbers, then JSON.parse). Their usual layout, as the exchange and
 * the simulator write it, is read here with one sticky regex per order instead: it builds the same
 * value the general parser would, several times faster. Any other text (whitespace, escapes,
 * another key order, an extra field, a warning) returns undefined and takes the general parser,
 * so this only ever decides how fast, never what comes out.
 *
 *   {"error":[],"result":{"pair":"…","bids":[ORDER,…],"asks":[ORDER,…]}}
 *   ORDER = {"price":"…","qty":"…","order_id":"…","timestamp":INTEGER}
 */
export function readLevel3Layout(text: string): unknown {
  if (!text.startsWith(HEAD)) return undefined;
  PAIR.lastIndex = HEAD.length;
  const pair = PAIR.exec(text);
  if (pair === null) return undefined;
  const bids = readOrders(text, PAIR.lastIndex);
  if (bids === undefined || !text.startsWith(BETWEEN, bids.end)) return undefined;
  const asks = readOrders(text, bids.end + BETWEEN.length);
  if (asks?.end !== text.length - TAIL.length || !text.endsWith(TAIL)) return undefined;
  return { error: [], result: { pair: pair[1], bids: bids.orders, asks: asks.orders } };
}

const HEAD = '{"error":[],"result":{"pair":"';
const BETWEEN = ',"asks":[';
const TAIL = '}}';
/** String contents JSON takes literally: no quote, no backslash (escape), no control character. */
const PLAIN = '[^"\\\\\\u0000-\\u001f]*';
const PAIR = new RegExp(`(${PLAIN})","bids":\\[`, 'y');
const ORDER = new RegExp(
  `\\{"price":"(${PLAIN})","qty":"(${PLAIN})","order_id":"(${PLAIN})",` +
    `"timestamp":(-?(?:0|[1-9]\\d*))\\}`,
  'y',
);

interface Orders {
  readonly orders: unknown[];
  /** Index just past the closing `]`. */
  readonly end: number;
}

function readOrders(text: string, from: number): Orders | undefined {
  const orders: unknown[] = [];
  if (text.charCodeAt(from) === CLOSE_BRACKET) return { orders, end: from + 1 };
  let i = from;
  for (;;) {
    ORDER.lastIndex = i;
    const m = ORDER.exec(text);
    if (m === null) return undefined;
    const [, price, qty, order_id, timestamp = ''] = m;
    orders.push({ price, qty, order_id, timestamp: exactInteger(timestamp) });
    i = ORDER.lastIndex + 1;
    const next = text.charCodeAt(i - 1);
    if (next === CLOSE_BRACKET) return { orders, end: i };
    if (next !== COMMA) return undefined;
  }
}

const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
