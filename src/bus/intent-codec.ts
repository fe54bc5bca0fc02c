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
import {
  InvalidInputError,
  MAX_INSTANCE,
  SIDES,
  parseSlotKey,
  type DesiredOrder,
  type IntentAction,
  type IntentTarget,
  type OrderIntent,
  type DepthSeen,
} from '../core/index.js';
import { BusError } from './errors.js';

/**
 * The one place that knows how an OrderIntent looks in Redis. Input is checked with the same rules
 * that check what is read back, so the bus never writes an entry it would later call corrupt, and
 * the executor never acts on an entry it did not check (the register is plain Redis: anything
 * with access can write to it).
 */

/** What the runner publishes: the bus assigns the generation. */
export type UnpublishedIntent = Omit<OrderIntent, 'generation'>;

interface Problem {
  /** Dotted path inside the intent; '' for the intent itself. */
  readonly field: string;
  readonly reason: string;
}

const ACTIONS: readonly IntentAction[] = ['place', 'amend', 'cancel'];
/** Printable, no spaces, and no `|`, which separates pair and slot in the generations hash. */
const PAIR = /^[\x21-\x7b\x7d\x7e]{1,64}$/;

const pair: Check = (v) =>
  typeof v === 'string' && PAIR.test(v)
    ? undefined
    : `must be 1..64 printable characters without spaces or '|', got ${show(v)}`;
const slot: Check = (v) => {
  if (typeof v !== 'string' || v.length === 0) return `must be a non-empty string, got ${show(v)}`;
  try {
    parseSlotKey(v);
    return undefined;
  } catch (err) {
    if (err instanceof InvalidInputError) return err.message.slice(err.field.length + 2);
    throw err;
  }
};

const DESIRED: Record<keyof DesiredOrder, Check> = {
  side: oneOf(SIDES),
  price: decimal,
  volume: decimal,
  postOnly: bool,
};
const TARGET: Record<keyof IntentTarget, Check> = {
  txid: nonEmpty,
  userref: nullable(intIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
  price: decimal,
  volume: decimal,
  volumeExecuted: decimal,
  openedAtMs: finite,
};
/** Depth's levels of one side: a few dozen in practice. */
const MAX_DEPTH_PRICES = 1_000;
const DEPTH_SEEN: Record<keyof DepthSeen, Check> = {
  asOfMs: finite,
  prices: (v) => {
    if (!Array.isArray(v) || v.length > MAX_DEPTH_PRICES) {
      return `must be an array of at most ${MAX_DEPTH_PRICES} decimal strings, got ${show(v)}`;
    }
    const bad = v.findIndex((p) => decimal(p) !== undefined);
    return bad >= 0 ? `[${bad}] ${decimal(v[bad]) ?? ''}` : undefined;
  },
};
const SCALARS: Record<
  Exclude<keyof OrderIntent, 'desired' | 'target' | 'depthSeen' | 'generation'>,
  Check
> = {
  instance: intIn(1, MAX_INSTANCE),
  pair,
  slot,
  action: oneOf(ACTIONS),
  reason: text,
  createdAtMs: finite,
  deadlineMs: finite,
  snapshotSeq: intIn(0, Number.MAX_SAFE_INTEGER),
  snapshotAtMs: finite,
  ordersAsOfMs: (v) => (v === undefined ? undefined : finite(v)),
};
const GENERATION = intIn(1, Number.MAX_SAFE_INTEGER);

/** Each rule set as a list, made once: every intent published or read back is checked. */
type Checks = readonly (readonly [string, Check])[];
const SCALAR_CHECKS: Checks = Object.entries(SCALARS);
const NESTED: readonly (readonly [string, Checks, readonly IntentAction[]])[] = [
  ['desired', Object.entries(DESIRED), ['place', 'amend']],
  ['target', Object.entries(TARGET), ['amend', 'cancel']],
  ['depthSeen', Object.entries(DEPTH_SEEN), []],
];

function checkFields(value: Fields, checks: Checks, path: string): Problem | undefined {
  for (const [name, check] of checks) {
    const reason = check(value[name]);
    if (reason !== undefined) return { field: path + name, reason };
  }
  return undefined;
}

function findProblem(value: unknown, withGeneration: boolean): Problem | undefined {
  if (!isFields(value)) return { field: '', reason: `must be an object, got ${show(value)}` };
  const scalar = checkFields(value, SCALAR_CHECKS, '');
  if (scalar !== undefined) return scalar;
  if (withGeneration) {
    const reason = GENERATION(value.generation);
    if (reason !== undefined) return { field: 'generation', reason };
  }
  const action = value.action as IntentAction;
  for (const [name, checks, neededBy] of NESTED) {
    const nested = value[name];
    if (nested === undefined) {
      if (neededBy.includes(action)) {
        return { field: name, reason: `is required for action ${action}` };
      }
      continue;
    }
    if (!isFields(nested)) return { field: name, reason: `must be an object, got ${show(nested)}` };
    const problem = checkFields(nested, checks, `${name}.`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * A fresh object holding exactly the known fields, so stray properties never travel on; with the
 * generation when one is given (an entry read back), without it for what is to be published.
 */
function build(v: Fields): UnpublishedIntent;
function build(v: Fields, generation: number): OrderIntent;
function build(v: Fields, generation?: number): UnpublishedIntent | OrderIntent {
  const d = v.desired as DesiredOrder | undefined;
  const t = v.target as IntentTarget | undefined;
  const seen = v.depthSeen as DepthSeen | undefined;
  const body: UnpublishedIntent = {
    instance: v.instance as number,
    pair: v.pair as string,
    slot: v.slot as string,
    action: v.action as IntentAction,
    desired:
      d === undefined
        ? undefined
        : { side: d.side, price: d.price, volume: d.volume, postOnly: d.postOnly },
    target:
      t === undefined
        ? undefined
        : {
            txid: t.txid,
            userref: t.userref,
            price: t.price,
            volume: t.volume,
            volumeExecuted: t.volumeExecuted,
            openedAtMs: t.openedAtMs,
          },
    reason: v.reason as string,
    createdAtMs: v.createdAtMs as number,
    deadlineMs: v.deadlineMs as number,
    snapshotSeq: v.snapshotSeq as number,
    snapshotAtMs: v.snapshotAtMs as number,
    ...(v.ordersAsOfMs === undefined ? {} : { ordersAsOfMs: v.ordersAsOfMs as number }),
    ...(seen === undefined ? {} : { depthSeen: { asOfMs: seen.asOfMs, prices: [...seen.prices] } }),
  };
  return generation === undefined ? body : { ...body, generation };
}

/** Checks publish() input; the first bad field is named as `intents[2].slot`. */
export function checkPublishInput(intents: unknown): UnpublishedIntent[] {
  if (!Array.isArray(intents)) {
    throw new InvalidInputError('intents', `must be an array, got ${show(intents)}`);
  }
  return intents.map((value: unknown, i) => {
    const problem = findProblem(value, false);
    if (problem !== undefined) {
      const field = problem.field === '' ? `intents[${i}]` : `intents[${i}].${problem.field}`;
      throw new InvalidInputError(field, problem.reason);
    }
    return build(value as Fields);
  });
}

/**
 * The register value without its generation, always a JSON object with at least one member: the
 * publish script splices `"generation":N,` in after the opening brace, so the generation is
 * assigned and stored in the same atomic step without Lua re-encoding the JSON (cjson rounds
 * numbers to 14 significant digits, and its output would no longer be what we checked).
 */
export function encodeBody(intent: UnpublishedIntent): string {
  return JSON.stringify(build(intent));
}

/** Parses and checks one register entry; `key`/`field` locate it in the error. */
export function decodeEntry(json: string, key: string, field: string, pairId: string): OrderIntent {
  const corrupt = (why: string, cause?: unknown): BusError =>
    new BusError('BUS_CORRUPT', key, field, `Redis key ${key} field ${field}: ${why}`, cause);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw corrupt(`not JSON: ${show(json)}`, err);
  }
  const problem = findProblem(value, true);
  if (problem !== undefined) {
    throw corrupt(`${problem.field === '' ? 'entry' : problem.field} ${problem.reason}`);
  }
  const intent = build(value as Fields, (value as Fields).generation as number);
  if (intent.pair !== pairId || intent.slot !== field) {
    throw corrupt(`holds the intent of ${intent.pair} ${intent.slot}`);
  }
  return intent;
}

/** Bids before asks, then by numeric level (as text, `bid:10` would come before `bid:2`). */
export function compareSlots(a: OrderIntent, b: OrderIntent): number {
  const x = parseSlotKey(a.slot);
  const y = parseSlotKey(b.slot);
  if (x.side !== y.side) return x.side === 'buy' ? -1 : 1;
  return x.level - y.level;
}

export const checkPair = (value: string, field: string): void => {
  const reason = pair(value);
  if (reason !== undefined) throw new InvalidInputError(field, reason);
};
