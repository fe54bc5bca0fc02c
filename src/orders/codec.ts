import {
  show,
  isFields,
  intIn,
  finite,
  text,
  nonEmpty,
  decimal,
  bool,
  oneOf,
  nullable,
  type Check,
  type Fields,
} from '../core/field-checks.js';
import { InvalidInputError, SIDES, isDecimalString, parseSlotKey } from '../core/index.js';
import { ORDER_STATES, type Fill, type Position, type TrackedOrder } from './types.js';
import { TrackerError } from './errors.js';

/**
 * The one place that knows how tracker records look in Redis: JSON objects with exactly the
 * fields of TrackedOrder, Fill and Position, in a fixed order. What is written is checked with the
 * same rules as what is read back, so the tracker never writes a record it would later call
 * corrupt, and never hands out one it did not check (anything with access to Redis can write).
 *
 * Decimals stay the strings they were (wire decimals, never floats); numbers are epoch
 * milliseconds, counts and userrefs, all safe integers or finite numbers that JSON round-trips.
 */

/** Printable, no spaces: a pair id is part of every per-pair key. */
const PAIR_RE = /^[\x21-\x7e]{1,64}$/;
/** The slot of an order of the key that is not this instance's (types.ts). */
export const FOREIGN_SLOT = 'foreign';

const anyInt = intIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
const count = intIn(0, Number.MAX_SAFE_INTEGER);
/** Read from the text ('-' and a non-zero digit): a Decimal per field and record read was garbage. */
const nonNegative: Check = (v) =>
  isDecimalString(v) && !(v.startsWith('-') && /[1-9]/.test(v))
    ? undefined
    : `must be a non-negative decimal string, got ${show(v)}`;
const pair: Check = (v) =>
  typeof v === 'string' && PAIR_RE.test(v)
    ? undefined
    : `must be 1..64 printable characters without spaces, got ${show(v)}`;
const slot: Check = (v) => {
  if (v === FOREIGN_SLOT) return undefined;
  if (typeof v !== 'string') return `must be a string, got ${show(v)}`;
  try {
    parseSlotKey(v);
    return undefined;
  } catch (err) {
    if (err instanceof InvalidInputError) {
      return `${err.message.slice(err.field.length + 2)}, or ${FOREIGN_SLOT}`;
    }
    throw err;
  }
};
const FEE_IN = ['base', 'quote'] as const;

/** Field order here is the field order of the JSON written. */
const ORDER: Record<keyof TrackedOrder, Check> = {
  userref: anyInt,
  txid: nullable(nonEmpty),
  pair,
  slot,
  generation: count,
  side: oneOf(SIDES),
  price: nonNegative,
  volume: nonNegative,
  volumeExecuted: nonNegative,
  cost: nonNegative,
  fee: decimal,
  postOnly: bool,
  feeIn: oneOf(FEE_IN),
  state: oneOf(ORDER_STATES),
  openedAtMs: finite,
  sentAtMs: finite,
  deadlineMs: finite,
  updatedAtMs: finite,
  pendingCall: nullable(oneOf(['add', 'edit', 'cancel'])),
  replaces: nullable(nonEmpty),
  reason: nullable(text),
  origin: oneOf(['placed', 'adopted']),
};

const FILL: Record<keyof Fill, Check> = {
  pair,
  txid: nonEmpty,
  userref: anyInt,
  side: oneOf(SIDES),
  price: nonNegative,
  volume: nonNegative,
  cost: nonNegative,
  fee: decimal,
  feeIn: oneOf(FEE_IN),
  atMs: finite,
};

const POSITION: Record<keyof Position, Check> = {
  pair,
  base: decimal,
  quote: decimal,
  fees: decimal,
  avgPrice: decimal,
  realizedPnl: decimal,
  fills: count,
  updatedAtMs: finite,
};

interface Problem {
  /** The member of the record; '' for the record itself. */
  readonly member: string;
  readonly reason: string;
}

function findProblem(value: unknown, checks: Record<string, Check>): Problem | undefined {
  if (!isFields(value)) return { member: '', reason: `must be an object, got ${show(value)}` };
  for (const [member, check] of Object.entries(checks)) {
    const reason = check(value[member]);
    if (reason !== undefined) return { member, reason };
  }
  return undefined;
}

/** A fresh object holding exactly the known fields in schema order: no stray property travels. */
function pick<T>(value: Fields, checks: Record<string, Check>): T {
  const out: Fields = {};
  for (const member of Object.keys(checks)) out[member] = value[member];
  return out as T;
}

function checked<T>(value: unknown, checks: Record<string, Check>, field: string): T {
  const problem = findProblem(value, checks);
  if (problem !== undefined) {
    throw new InvalidInputError(
      problem.member === '' ? field : `${field}.${problem.member}`,
      problem.reason,
    );
  }
  return pick<T>(value as Fields, checks);
}

/** Checks caller input; the first bad member is named as `${field}.price`. */
export const checkOrder = (value: unknown, field: string): TrackedOrder =>
  checked<TrackedOrder>(value, ORDER, field);
export const checkFill = (value: unknown, field: string): Fill => checked<Fill>(value, FILL, field);
export const checkPosition = (value: unknown, field: string): Position =>
  checked<Position>(value, POSITION, field);

/** Canonical JSON of a record already checked (checkOrder / checkFill / checkPosition output). */
const fields = (record: object): Fields => record as unknown as Fields;
export const encodeOrder = (order: TrackedOrder): string =>
  JSON.stringify(pick(fields(order), ORDER));
export const encodeFill = (fill: Fill): string => JSON.stringify(pick(fields(fill), FILL));
export const encodePosition = (position: Position): string =>
  JSON.stringify(pick(fields(position), POSITION));

export function checkPair(value: unknown, field: string): string {
  const reason = pair(value);
  if (reason !== undefined) throw new InvalidInputError(field, reason);
  return value as string;
}

/** Where a stored value sits: its key and, for a hash or list entry, the field or index. */
export interface Location {
  readonly key: string;
  readonly field?: string;
}

function decode<T>(
  json: string,
  at: Location,
  checks: Record<string, Check>,
  expect: (value: T) => string | undefined,
): T {
  const where =
    at.field === undefined ? `Redis key ${at.key}` : `Redis key ${at.key} field ${at.field}`;
  const corrupt = (why: string, cause?: unknown): TrackerError =>
    new TrackerError('TRACKER_CORRUPT', at.key, at.field, `${where}: ${why}`, cause);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw corrupt(`not JSON: ${show(json)}`, err);
  }
  const problem = findProblem(value, checks);
  if (problem !== undefined) {
    throw corrupt(`${problem.member === '' ? 'record' : problem.member} ${problem.reason}`);
  }
  const record = pick<T>(value as Fields, checks);
  const mismatch = expect(record);
  if (mismatch !== undefined) throw corrupt(mismatch);
  return record;
}

/** A live-hash or history entry of `pairId`; in the live hash `at.field` must be its userref. */
export function decodeOrder(
  json: string,
  at: Location,
  pairId: string,
  userref?: number,
): TrackedOrder {
  return decode<TrackedOrder>(json, at, ORDER, (o) => {
    if (o.pair !== pairId) return `holds an order of ${o.pair}`;
    if (userref !== undefined && o.userref !== userref) return `holds userref ${o.userref}`;
    return undefined;
  });
}

/** The head of an order record as encodeOrder writes it: userref, then a txid without escapes. */
const RECORD_HEAD = /^\{"userref":-?\d+,"txid":"([^"\\]*)"/;

/**
 * The txid of an order record, read without checking the rest: a search through a pair's history
 * for a few orders looks at each entry once and fully decodes only the ones it looks for. Undefined
 * for an entry that is not an object with a string txid (decodeOrder says what is wrong with it).
 * Every full sync searches the whole history (up to 2,000 entries a pair): records as written here
 * give their txid from their head, which saves parsing each into an object that is thrown away.
 */
export function peekTxid(json: string): string | undefined {
  const head = RECORD_HEAD.exec(json);
  if (head !== null) return head[1];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const txid = isFields(value) ? value.txid : undefined;
  return typeof txid === 'string' ? txid : undefined;
}

export function decodeFill(json: string, at: Location, pairId: string): Fill {
  return decode<Fill>(json, at, FILL, (f) =>
    f.pair === pairId ? undefined : `holds a fill of ${f.pair}`,
  );
}

export function decodePosition(json: string, at: Location, pairId: string): Position {
  return decode<Position>(json, at, POSITION, (p) =>
    p.pair === pairId ? undefined : `holds the position of ${p.pair}`,
  );
}

/**
 * The hash field of a userref. Fields are parsed back with Number(); a field that is not the
 * canonical text of a safe integer was not written by the tracker.
 */
export const userrefField = (userref: number): string => String(userref);

export function parseUserrefField(field: string, key: string): number {
  const n = Number(field);
  if (!Number.isSafeInteger(n) || String(n) !== field) {
    throw new TrackerError(
      'TRACKER_CORRUPT',
      key,
      field,
      `Redis key ${key} field ${show(field)}: not a userref`,
    );
  }
  return n;
}
