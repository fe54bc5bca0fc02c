import {
  CLOSE_ORDER_TYPES,
  Decimal,
  isDecimalString,
  ORDER_TYPES,
  STP_TYPES,
  TIME_IN_FORCE,
} from '../../core/index.js';
import { OTHER_LIMITS } from '../../exchange/limits/index.js';
import type {
  CloseOrderType,
  CloseSpec,
  EditSpec,
  OrderFlags,
  OrderSpec,
  OrderType,
  PriceSpec,
} from '../engine/types.js';
import { invalidArguments, SimError } from '../errors.js';
import type { Markets, SimPair } from '../markets.js';

/**
 * Request fields → OrderSpec / EditSpec. Fields arrive as form strings (keys verbatim, e.g.
 * `close[ordertype]`) or as JSON values, so every reader accepts both. Anything missing, malformed
 * or contradictory is `EGeneral:Invalid arguments:<field>` naming the field the client must fix;
 * an unknown pair is `EQuery:Unknown asset pair` as the exchange answers it.
 */

type Params = Readonly<Record<string, unknown>>;

const OFLAGS = ['post', 'fcib', 'fciq', 'nompp', 'viqc'] as const;
type OFlag = (typeof OFLAGS)[number];

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

// ---- primitive readers ---------------------------------------------------------------------

/** A field as text: strings verbatim, JSON numbers as their decimal text; '' counts as absent. */
export function text(params: Params, field: string): string | undefined {
  const v = params[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw invalidArguments(field);
}

export function requireText(params: Params, field: string): string {
  const v = text(params, field);
  if (v === undefined) throw invalidArguments(field);
  return v;
}

/** `true`/`'true'` and `false`/`'false'` (the client form-encodes booleans as words). */
export function bool(params: Params, field: string): boolean {
  const v = params[field];
  if (v === undefined || v === null || v === '') return false;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw invalidArguments(field);
}

/** A non-negative plain decimal. */
function decimal(value: string, field: string): Decimal {
  if (!isDecimalString(value) || value.startsWith('-') || value.startsWith('+')) {
    throw invalidArguments(field);
  }
  return new Decimal(value);
}

function positive(value: string, field: string): Decimal {
  const d = decimal(value, field);
  if (d.isZero()) throw invalidArguments(field);
  return d;
}

/** int32 from a JSON integer or a form string of digits. */
export function int32(value: unknown, field: string): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^[+-]?\d{1,11}$/.test(value)) n = Number(value);
  else throw invalidArguments(field);
  if (!Number.isInteger(n) || n < INT32_MIN || n > INT32_MAX) throw invalidArguments(field);
  return n;
}

export function optionalUserref(params: Params, field = 'userref'): number | undefined {
  const v = params[field];
  if (v === undefined || v === null || v === '') return undefined;
  return int32(v, field);
}

/**
 * An order reference as CancelOrder, EditOrder and CancelOrderBatch take it: an order id, or a
 * userref (a JSON integer or a string of digits, which no order id can be).
 */
export function orderRef(value: unknown, field: string): string | number {
  if (typeof value === 'number') return int32(value, field);
  if (typeof value !== 'string' || value === '') throw invalidArguments(field);
  if (/^[+-]?\d+$/.test(value)) return int32(value, field);
  return value;
}

/** A list field: a JSON array, or a comma list in a form string. */
export function list(params: Params, field: string): unknown[] | undefined {
  const v = params[field];
  if (v === undefined || v === null || v === '') return undefined;
  if (Array.isArray(v)) return v as unknown[];
  if (typeof v === 'string') return v.split(',').map((s) => s.trim());
  if (typeof v === 'number') return [v];
  throw invalidArguments(field);
}

// ---- prices -----------------------------------------------------------------------------------

const PRICE_RE = /^([+\-#])?(\d+(?:\.\d*)?|\.\d+)(%)?$/;

/**
 * `37500.5` absolute; `+10`, `-10`, `#10` offsets from the last trade, `%` making the offset a
 * percentage. A `%` without a prefix has no meaning and is refused; a `-` of 100 % or more would
 * put the price at or below zero.
 */
export function parsePrice(value: string, field: string): PriceSpec {
  const m = PRICE_RE.exec(value);
  if (m === null) throw invalidArguments(field);
  const op = m[1] as '+' | '-' | '#' | undefined;
  const amount = new Decimal(m[2] ?? '');
  const percent = m[3] === '%';
  if (op === undefined) {
    if (percent) throw invalidArguments(field);
    return { kind: 'abs', value: amount };
  }
  if (percent && op !== '+' && amount.gte(100)) throw invalidArguments(field);
  return { kind: 'rel', op, amount, percent };
}

function optionalPrice(params: Params, field: string): PriceSpec | undefined {
  const v = text(params, field);
  return v === undefined ? undefined : parsePrice(v, field);
}

/**
 * Which prices an order type needs, and the spec's extra rule for trailing stops: `price` is a
 * `+` offset (the direction is automatic) and `price2` a `+` or `-` offset from the trigger.
 * Prices an order type does not use are dropped, as the exchange ignores them.
 */
function pricesFor(
  ordertype: OrderType,
  price: PriceSpec | undefined,
  price2: PriceSpec | undefined,
  fields: { price: string; price2: string },
): { price?: PriceSpec; price2?: PriceSpec } {
  switch (ordertype) {
    case 'market':
    case 'settle-position':
      return {};
    case 'limit':
    case 'stop-loss':
    case 'take-profit':
      if (price === undefined) throw invalidArguments(fields.price);
      return { price };
    case 'stop-loss-limit':
    case 'take-profit-limit':
      if (price === undefined) throw invalidArguments(fields.price);
      if (price2 === undefined) throw invalidArguments(fields.price2);
      return { price, price2 };
    case 'trailing-stop':
      checkTrailingPrice(price, fields.price);
      return { price };
    case 'trailing-stop-limit':
      checkTrailingPrice(price, fields.price);
      checkTrailingLimit(price2, fields.price2);
      return { price, price2 };
  }
}

function checkTrailingPrice(
  price: PriceSpec | undefined,
  field: string,
): asserts price is PriceSpec {
  if (price === undefined || price.kind !== 'rel' || price.op !== '+')
    throw invalidArguments(field);
}

function checkTrailingLimit(
  price2: PriceSpec | undefined,
  field: string,
): asserts price2 is PriceSpec {
  if (price2 === undefined || price2.kind !== 'rel' || price2.op === '#') {
    throw invalidArguments(field);
  }
}

// ---- flags and times -------------------------------------------------------------------------

function parseOflags(value: string | undefined): Set<OFlag> {
  const flags = new Set<OFlag>();
  if (value === undefined) return flags;
  for (const raw of value.split(',')) {
    const f = raw.trim();
    if (f === '') continue;
    if (!(OFLAGS as readonly string[]).includes(f)) throw invalidArguments('oflags');
    flags.add(f as OFlag);
  }
  if (flags.has('fcib') && flags.has('fciq')) throw invalidArguments('oflags');
  return flags;
}

function orderFlags(flags: ReadonlySet<OFlag>, ordertype: OrderType): OrderFlags {
  if (flags.has('post') && ordertype !== 'limit') throw invalidArguments('oflags');
  if (flags.has('viqc') && ordertype !== 'market') throw invalidArguments('oflags');
  return {
    post: flags.has('post'),
    fcib: flags.has('fcib'),
    fciq: flags.has('fciq'),
    nompp: flags.has('nompp'),
    viqc: flags.has('viqc'),
  };
}

/** Unix seconds (a fraction allowed) or `+<n>` seconds from now, in ms; `0` = unset. */
function parseTime(
  value: string | undefined,
  field: string,
  nowMs: number,
): {
  ms: number;
  relativeSec?: number;
} {
  if (value === undefined || value === '0') return { ms: 0 };
  const relative = value.startsWith('+');
  const body = relative ? value.slice(1) : value;
  if (!/^\d+(\.\d+)?$/.test(body)) throw invalidArguments(field);
  const seconds = Number(body);
  if (!relative) return seconds === 0 ? { ms: 0 } : { ms: Math.round(seconds * 1000) };
  return { ms: nowMs + Math.round(seconds * 1000), relativeSec: seconds };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * `deadline` at handling time: one already passed is `EService:Deadline elapsed` (the engine got
 * it too late); one outside now+2 s … now+60 s is a malformed request,
 * `EGeneral:Invalid arguments:deadline`. Returns the deadline in ms, or undefined when absent.
 */
export function checkDeadline(params: Params, nowMs: number): number | undefined {
  const v = text(params, 'deadline');
  if (v === undefined) return undefined;
  if (!RFC3339.test(v)) throw invalidArguments('deadline');
  const ms = Date.parse(v.replace(' ', 'T'));
  if (Number.isNaN(ms)) throw invalidArguments('deadline');
  if (ms <= nowMs) throw new SimError('EService:Deadline elapsed');
  if (ms < nowMs + OTHER_LIMITS.deadlineMinMs || ms > nowMs + OTHER_LIMITS.deadlineMaxMs) {
    throw invalidArguments('deadline');
  }
  return ms;
}

/** One of `allowed`, or undefined when absent. */
function oneOf<T extends string>(
  params: Params,
  field: string,
  allowed: readonly T[],
): T | undefined {
  const v = text(params, field);
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw invalidArguments(field);
  return v as T;
}

function requireOneOf<T extends string>(params: Params, field: string, allowed: readonly T[]): T {
  const v = oneOf(params, field, allowed);
  if (v === undefined) throw invalidArguments(field);
  return v;
}

function parseLeverage(params: Params): string | undefined {
  const v = text(params, 'leverage');
  if (v === undefined || v === 'none') return undefined;
  if (!/^[1-9]\d*(:1)?$/.test(v)) throw invalidArguments('leverage');
  return v;
}

/** `close[ordertype]`… as form fields, or `close: {ordertype, price, price2}` in JSON. */
function parseClose(params: Params): CloseSpec | undefined {
  const nested = params['close'];
  let fields: Params;
  if (nested !== undefined && nested !== null && nested !== '') {
    if (typeof nested !== 'object' || Array.isArray(nested)) throw invalidArguments('close');
    const obj = nested as Record<string, unknown>;
    fields = {
      'close[ordertype]': obj['ordertype'],
      'close[price]': obj['price'],
      'close[price2]': obj['price2'],
    };
  } else {
    fields = params;
  }
  const ordertype = text(fields, 'close[ordertype]');
  const price = optionalPrice(fields, 'close[price]');
  const price2 = optionalPrice(fields, 'close[price2]');
  if (ordertype === undefined) {
    if (price !== undefined || price2 !== undefined) throw invalidArguments('close[ordertype]');
    return undefined;
  }
  if (!(CLOSE_ORDER_TYPES as readonly string[]).includes(ordertype)) {
    throw invalidArguments('close[ordertype]');
  }
  const t = ordertype as CloseOrderType;
  return {
    ordertype: t,
    ...pricesFor(t, price, price2, { price: 'close[price]', price2: 'close[price2]' }),
  };
}

// ---- AddOrder -------------------------------------------------------------------------------

/**
 * One order's fields (AddOrder, or an AddOrderBatch entry whose pair the batch gives). `deadline`
 * and `validate` belong to the request, not the order: see parseAddOrder and checkDeadline.
 */
export function parseOrderFields(params: Params, pair: SimPair, nowMs: number): OrderSpec {
  const ordertype = requireOneOf(params, 'ordertype', ORDER_TYPES);
  const side = requireOneOf(params, 'type', ['buy', 'sell'] as const);
  const volume = decimal(requireText(params, 'volume'), 'volume');

  const displayText = text(params, 'displayvol');
  let displayvol: Decimal | undefined;
  if (displayText !== undefined) {
    displayvol = positive(displayText, 'displayvol');
    if (ordertype !== 'limit' || displayvol.gte(volume)) throw invalidArguments('displayvol');
  }

  const prices = pricesFor(
    ordertype,
    optionalPrice(params, 'price'),
    optionalPrice(params, 'price2'),
    { price: 'price', price2: 'price2' },
  );
  const flags = orderFlags(parseOflags(text(params, 'oflags')), ordertype);
  const timeinforce = oneOf(params, 'timeinforce', TIME_IN_FORCE) ?? 'GTC';

  const start = parseTime(text(params, 'starttm'), 'starttm', nowMs);
  const expire = parseTime(text(params, 'expiretm'), 'expiretm', nowMs);
  if (expire.ms !== 0) {
    if (
      expire.relativeSec !== undefined &&
      expire.relativeSec < OTHER_LIMITS.expiretmRelativeMinSec
    ) {
      throw invalidArguments('expiretm');
    }
    if (expire.ms <= nowMs || (start.ms !== 0 && expire.ms <= start.ms)) {
      throw invalidArguments('expiretm');
    }
  }
  if (timeinforce === 'GTD' && expire.ms === 0) throw invalidArguments('expiretm');

  const close = parseClose(params);
  const leverage = parseLeverage(params);
  return {
    pair,
    side,
    ordertype,
    volume,
    ...(displayvol === undefined ? {} : { displayvol }),
    ...prices,
    trigger: oneOf(params, 'trigger', ['last', 'index'] as const) ?? 'last',
    flags,
    timeinforce,
    starttmMs: start.ms,
    expiretmMs: expire.ms,
    userref: optionalUserref(params) ?? 0,
    stptype: oneOf(params, 'stptype', STP_TYPES) ?? 'cancel-newest',
    ...(close === undefined ? {} : { close }),
    ...(leverage === undefined ? {} : { leverage }),
    reduceOnly: bool(params, 'reduce_only'),
  };
}

export interface ParsedAddOrder {
  readonly spec: OrderSpec;
  readonly validate: boolean;
}

/** A whole AddOrder request; the deadline is checked against `nowMs`, the handling time. */
export function parseAddOrder(params: Params, markets: Markets, nowMs: number): ParsedAddOrder {
  const pair = markets.requirePair(requireText(params, 'pair'));
  checkDeadline(params, nowMs);
  const validate = bool(params, 'validate');
  return { spec: parseOrderFields(params, pair, nowMs), validate };
}

/**
 * Whether the raw fields ask for a post-only limit order: the status check (post_only mode lets
 * only those through) comes before any other parsing, as the exchange's gate does.
 */
export function isPostOnlyLimit(params: Params): boolean {
  const oflags = params['oflags'];
  return (
    params['ordertype'] === 'limit' &&
    typeof oflags === 'string' &&
    oflags.split(',').some((f) => f.trim() === 'post')
  );
}

// ---- AddOrderBatch ----------------------------------------------------------------------------

export interface ParsedBatch {
  readonly pair: SimPair;
  readonly validate: boolean;
  /** Per request entry: its spec, or the error that drops it. */
  readonly entries: readonly (OrderSpec | SimError)[];
  /** Per request entry: whether it is a post-only limit order (for the post_only gate). */
  readonly postOnly: readonly boolean[];
}

/**
 * AddOrderBatch: request-level problems (no pair, no orders, more than 15, a bad deadline) refuse
 * the whole call; an entry that does not parse, or names another pair, is dropped with its error
 * and the others go ahead.
 */
export function parseAddOrderBatch(params: Params, markets: Markets, nowMs: number): ParsedBatch {
  const pair = markets.requirePair(requireText(params, 'pair'));
  checkDeadline(params, nowMs);
  const validate = bool(params, 'validate');
  const orders = params['orders'];
  if (
    !Array.isArray(orders) ||
    orders.length === 0 ||
    orders.length > OTHER_LIMITS.addOrderBatchMaxOrders
  ) {
    throw invalidArguments('orders');
  }
  const entries: (OrderSpec | SimError)[] = [];
  const postOnly: boolean[] = [];
  for (const raw of orders as unknown[]) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      entries.push(invalidArguments('orders'));
      postOnly.push(false);
      continue;
    }
    const fields = raw as Params;
    postOnly.push(isPostOnlyLimit(fields));
    try {
      const own = text(fields, 'pair');
      if (own !== undefined && markets.pair(own) !== pair) throw invalidArguments('pair');
      entries.push(parseOrderFields(fields, pair, nowMs));
    } catch (err) {
      if (!(err instanceof SimError)) throw err;
      entries.push(err);
    }
  }
  return { pair, validate, entries, postOnly };
}

// ---- EditOrder --------------------------------------------------------------------------------

export interface ParsedEdit {
  /** Order id, or a userref. */
  readonly target: string | number;
  readonly pair: SimPair;
  readonly changes: EditSpec;
  readonly validate: boolean;
  /**
   * Accepted and otherwise ignored: the simulator replaces the order within the call, so there is
   * never a pending-replace state to report.
   */
  readonly cancelResponse: boolean;
}

/**
 * EditOrder fields. Of `oflags` only `post` means anything (the parent's other flags are kept);
 * the other known flags are accepted and ignored, unknown ones refused.
 */
export function parseEditOrder(params: Params, markets: Markets, nowMs: number): ParsedEdit {
  const raw = params['txid'];
  if (raw === undefined || raw === null || raw === '') throw invalidArguments('txid');
  const target = orderRef(raw, 'txid');
  const pair = markets.requirePair(requireText(params, 'pair'));
  checkDeadline(params, nowMs);
  const volumeText = text(params, 'volume');
  const displayText = text(params, 'displayvol');
  const price = optionalPrice(params, 'price');
  const price2 = optionalPrice(params, 'price2');
  const userref = optionalUserref(params);
  const flags = parseOflags(text(params, 'oflags'));
  const volume = volumeText === undefined ? undefined : positive(volumeText, 'volume');
  const displayvol = displayText === undefined ? undefined : positive(displayText, 'displayvol');
  if (volume !== undefined && displayvol !== undefined && displayvol.gte(volume)) {
    throw invalidArguments('displayvol');
  }
  return {
    target,
    pair,
    changes: {
      ...(volume === undefined ? {} : { volume }),
      ...(displayvol === undefined ? {} : { displayvol }),
      ...(price === undefined ? {} : { price }),
      ...(price2 === undefined ? {} : { price2 }),
      ...(userref === undefined ? {} : { userref }),
      post: flags.has('post'),
    },
    validate: bool(params, 'validate'),
    cancelResponse: bool(params, 'cancel_response'),
  };
}

/**
 * The edit's changes against the order being replaced: the same price rules as AddOrder for its
 * type (trailing offsets stay relative, `displayvol` only on limit orders, `post` only on limit).
 */
export function checkEditAgainst(ordertype: OrderType, changes: EditSpec): void {
  if (changes.price !== undefined && ordertype.startsWith('trailing-stop')) {
    checkTrailingPrice(changes.price, 'price');
  }
  if (changes.price2 !== undefined && ordertype === 'trailing-stop-limit') {
    checkTrailingLimit(changes.price2, 'price2');
  }
  if (changes.displayvol !== undefined && ordertype !== 'limit')
    throw invalidArguments('displayvol');
  if (changes.post && ordertype !== 'limit') throw invalidArguments('oflags');
}
