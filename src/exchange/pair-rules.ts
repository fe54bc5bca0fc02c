import {
  Decimal,
  InvalidInputError,
  dec,
  isDecimalString,
  toWire,
  type DecimalString,
} from '../core/index.js';
import { errorFromString, type ExchangeError } from './errors/index.js';

/**
 * The AssetPairs fields the order checks need, exactly as the exchange sends them.
 *
 * `tick_size` (Nov 2022) and `costmin` (Oct 2022) are later additions to AssetPairs, so they are
 * optional here: without `tick_size` prices fall back to `pair_decimals`, without `costmin` there
 * is no cost floor to check.
 */
export interface PairRulesSource {
  altname: string;
  wsname?: string;
  base: string;
  quote: string;
  pair_decimals: number;
  lot_decimals: number;
  cost_decimals: number;
  ordermin: string;
  costmin?: string;
  tick_size?: string;
  status?: string;
}

/** An order as far as the pre-flight checks care: the AddOrder / EditOrder / batch-entry fields. */
export interface CheckableOrder {
  type: 'buy' | 'sell';
  ordertype: string;
  volume: string;
  price?: string;
  /** The limit price of `*-limit` orders, where `price` is only the trigger. */
  price2?: string;
  oflags?: string;
}

export type PriceRoundingMode = 'down' | 'up' | 'nearest';

const UNSIGNED_DECIMAL = /^(?:\d+\.?\d*|\.\d+)$/;
// `+`, `-`, `#` offsets from the last trade and `%` percentages: the engine resolves these later,
// so there is no absolute value to hold against the tick or the cost floor.
const RELATIVE_PRICE = /^([+\-#]?)(.*?)(%?)$/s;

const ROUNDING = {
  down: Decimal.ROUND_FLOOR,
  up: Decimal.ROUND_CEIL,
  // Ties go up, as a person reading "nearest tick" expects; prices are positive so "up" is
  // unambiguous.
  nearest: Decimal.ROUND_HALF_UP,
} as const satisfies Record<PriceRoundingMode, number>;

// The shared Decimal rounds every product to 40 significant digits; a cost within that rounding
// of costmin could flip the verdict, so the one multiplication here is done without rounding.
const Unrounded = Decimal.clone({ precision: 1e9 });

function nonNegativeInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidInputError(field, `expected a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function nonNegativeDecimal(field: string, value: unknown): Decimal {
  if (typeof value !== 'string' || !UNSIGNED_DECIMAL.test(value)) {
    throw new InvalidInputError(
      field,
      `expected a non-negative decimal string, got ${JSON.stringify(value)}`,
    );
  }
  return dec(value);
}

/** Caller-side numbers for the rounding helpers: bad input here is a bug, not an exchange error. */
function callerDecimal(field: string, value: DecimalString | Decimal): Decimal {
  let d: Decimal;
  if (typeof value === 'string') {
    try {
      d = dec(value);
    } catch {
      throw new InvalidInputError(field, `not a decimal number: ${JSON.stringify(value)}`);
    }
  } else {
    d = dec(value);
  }
  if (!d.isFinite()) throw new InvalidInputError(field, 'must be finite');
  if (d.isNegative() && !d.isZero()) throw new InvalidInputError(field, 'must not be negative');
  return d;
}

/**
 * One pair's order-entry rules from AssetPairs, held as exact decimals.
 *
 * `status` is kept for callers but not enforced: whether a non-`online` pair (`cancel_only`,
 * `post_only`, `limit_only`, `reduce_only`, ...) accepts a given order depends on the engine's
 * state at the moment it handles it, so the exchange's own answer is the only reliable one.
 */
export class PairRules {
  readonly pairId: string;
  readonly altname: string;
  readonly wsname: string | undefined;
  readonly base: string;
  readonly quote: string;
  readonly status: string | undefined;
  readonly pairDecimals: number;
  readonly lotDecimals: number;
  readonly costDecimals: number;
  readonly ordermin: Decimal;
  /** Zero when the exchange sent no `costmin`. */
  readonly costmin: Decimal;
  /** The price step actually enforced: `tick_size`, or 10^-pair_decimals without one. */
  readonly tickSize: Decimal;
  /** Whether `tickSize` came from `tick_size` or was derived from `pair_decimals`. */
  readonly tickSource: 'tick_size' | 'pair_decimals';
  /** The smallest volume step, 10^-lot_decimals. */
  readonly lotSize: Decimal;

  /** Throws InvalidInputError (field `<pairId>.<field>`) when the exchange data is unusable. */
  constructor(pairId: string, source: PairRulesSource) {
    const field = (name: string): string => `${pairId}.${name}`;
    if (pairId === '') throw new InvalidInputError('pair', 'pair id must not be empty');
    if (typeof source.altname !== 'string' || source.altname === '') {
      throw new InvalidInputError(field('altname'), 'must be a non-empty string');
    }
    this.pairId = pairId;
    this.altname = source.altname;
    this.wsname = source.wsname === '' ? undefined : source.wsname;
    this.base = source.base;
    this.quote = source.quote;
    this.status = source.status;
    this.pairDecimals = nonNegativeInteger(field('pair_decimals'), source.pair_decimals);
    this.lotDecimals = nonNegativeInteger(field('lot_decimals'), source.lot_decimals);
    this.costDecimals = nonNegativeInteger(field('cost_decimals'), source.cost_decimals);
    this.ordermin = nonNegativeDecimal(field('ordermin'), source.ordermin);
    this.costmin =
      source.costmin === undefined || source.costmin === ''
        ? new Decimal(0)
        : nonNegativeDecimal(field('costmin'), source.costmin);
    this.lotSize = new Decimal(`1e-${this.lotDecimals}`);

    const tick =
      source.tick_size === undefined || source.tick_size === ''
        ? undefined
        : nonNegativeDecimal(field('tick_size'), source.tick_size);
    // A zero step would make every price a "multiple"; the pair's decimals are the next best rule.
    if (tick === undefined || tick.isZero()) {
      this.tickSize = new Decimal(`1e-${this.pairDecimals}`);
      this.tickSource = 'pair_decimals';
    } else {
      this.tickSize = tick;
      this.tickSource = 'tick_size';
    }
  }

  /**
   * A multiple of the tick size. 'nearest' sends exact halves up. The result may be 0.
   * decimal.js's toNearest keeps every digit (no rounding to the 40-digit precision), so huge
   * prices land exactly on the grid too.
   */
  roundPrice(price: DecimalString | Decimal, mode: PriceRoundingMode): DecimalString {
    const p = callerDecimal('price', price);
    return toWire(p.toNearest(this.tickSize, ROUNDING[mode]));
  }

  /**
   * Rounds a maker quote onto the tick without ever making it more aggressive: a bid moves down
   * and an ask moves up, so rounding cannot turn a resting quote into a taker or cross the spread.
   */
  roundPriceForSide(price: DecimalString | Decimal, side: 'buy' | 'sell'): DecimalString {
    return this.roundPrice(price, side === 'buy' ? 'down' : 'up');
  }

  /**
   * Truncates to lot_decimals: rounding up could spend more than the caller has or meant to.
   * The result may fall below ordermin (or be 0); check() says so.
   */
  roundVolume(volume: DecimalString | Decimal): DecimalString {
    const v = callerDecimal('volume', volume);
    return toWire(v.toDecimalPlaces(this.lotDecimals, Decimal.ROUND_DOWN));
  }

  private onGrid(p: Decimal): boolean {
    return p.toNearest(this.tickSize, Decimal.ROUND_DOWN).eq(p);
  }

  /** Whether an absolute price lies on the tick grid. */
  isOnTick(price: DecimalString | Decimal): boolean {
    const p = callerDecimal('price', price);
    return this.onGrid(p);
  }

  /**
   * The price-only part of check(), for an EditOrder that changes just the price: a malformed or
   * non-positive price is EGeneral:Invalid arguments:<field> ..., an absolute one off the grid is
   * EOrder:Tick size check failed; relative prices only need a numeric offset.
   */
  checkPrice(price: string, endpoint = 'EditOrder', field: 'price' | 'price2' = 'price'): void {
    const context = { traceId: undefined, endpoint };
    const p = parsePrice(field, price, (f, reason) =>
      errorFromString(`EGeneral:Invalid arguments:${f} ${reason}`, context),
    );
    if (p !== undefined && !this.onGrid(p)) {
      throw errorFromString('EOrder:Tick size check failed', context);
    }
  }

  /**
   * Rejects, before the network, what the exchange would reject for this pair, with the
   * exchange's own error classes so callers handle a local and a remote rejection alike. The
   * errors carry no trace id: that is how to tell that the exchange never saw the order.
   *
   * Order of checks: malformed fields (EGeneral:Invalid arguments:<field> <reason>), then the tick
   * (EOrder:Tick size check failed), then ordermin (EOrder:Order minimum not met), then costmin
   * (EOrder:Cost minimum not met, only when an absolute limit price is known).
   *
   * Not checked here, left to the exchange: pair status, whether a price is required or allowed
   * for the order type (an EditOrder may omit it), volume 0 for closing margin orders, and the
   * base-currency minimums of `viqc` orders, whose volume is in the quote currency.
   */
  check(order: CheckableOrder, endpoint = 'AddOrder'): void {
    const context = { traceId: undefined, endpoint };
    const invalid = (field: string, reason: string): ExchangeError =>
      errorFromString(`EGeneral:Invalid arguments:${field} ${reason}`, context);

    const flags = (order.oflags ?? '').split(',').map((f) => f.trim());
    const volumeInQuote = flags.includes('viqc');

    const volume = parsePositive('volume', order.volume, invalid);
    if (!volumeInQuote && volume.decimalPlaces() > this.lotDecimals) {
      throw invalid('volume', `has more than ${this.lotDecimals} decimals`);
    }
    const price = order.price === undefined ? undefined : parsePrice('price', order.price, invalid);
    const price2 =
      order.price2 === undefined ? undefined : parsePrice('price2', order.price2, invalid);

    for (const p of [price, price2]) {
      if (p !== undefined && !this.onGrid(p)) {
        throw errorFromString('EOrder:Tick size check failed', context);
      }
    }

    if (!volumeInQuote && volume.lt(this.ordermin)) {
      throw errorFromString('EOrder:Order minimum not met', context);
    }

    const limitPrice =
      order.ordertype === 'limit' ? price : order.ordertype.endsWith('-limit') ? price2 : undefined;
    if (!volumeInQuote && limitPrice !== undefined) {
      const cost = new Unrounded(limitPrice).times(volume);
      if (cost.lt(this.costmin)) throw errorFromString('EOrder:Cost minimum not met', context);
    }
  }
}

type Invalid = (field: string, reason: string) => ExchangeError;

function parsePositive(field: string, raw: string, invalid: Invalid): Decimal {
  if (!UNSIGNED_DECIMAL.test(raw)) {
    throw invalid(
      field,
      isDecimalString(raw) && raw.startsWith('-')
        ? 'must be positive'
        : 'is not a plain decimal number',
    );
  }
  const d = dec(raw);
  if (d.isZero()) throw invalid(field, 'must be positive');
  return d;
}

/** The absolute price, or undefined for a relative one (after checking its offset is a number). */
function parsePrice(field: string, raw: string, invalid: Invalid): Decimal | undefined {
  const [, prefix = '', body = raw, suffix = ''] = RELATIVE_PRICE.exec(raw) ?? [];
  if (prefix === '' && suffix === '') return parsePositive(field, raw, invalid);
  if (!UNSIGNED_DECIMAL.test(body))
    throw invalid(field, 'has a relative offset that is not a plain decimal number');
  return undefined;
}

/**
 * Every pair's rules, reachable by pair id, altname or wsname: AddOrder takes either of the first
 * two, and the websocket feeds name pairs by wsname.
 */
export class PairRulesBook {
  private readonly byName = new Map<string, PairRules>();
  private readonly ids: string[] = [];
  /**
   * Pair ids (and their aliases) whose AssetPairs entry was unusable, with the reason, so
   * require() can explain instead of saying "unknown".
   */
  readonly rejected: ReadonlyMap<string, InvalidInputError>;

  constructor(
    rules: Iterable<PairRules>,
    rejected: ReadonlyMap<string, InvalidInputError> = new Map(),
  ) {
    const all = [...rules];
    for (const r of all) {
      this.byName.set(r.pairId, r);
      this.ids.push(r.pairId);
    }
    // An alias that two pairs claim would route an order to a coin flip: such a name is dropped,
    // and a pair id always beats another pair's alias.
    const ambiguous = new Set<string>();
    for (const r of all) {
      for (const alias of [r.altname, r.wsname]) {
        if (alias === undefined || alias === r.pairId || ambiguous.has(alias)) continue;
        const existing = this.byName.get(alias);
        if (existing === undefined) {
          this.byName.set(alias, r);
        } else if (existing !== r && existing.pairId !== alias) {
          this.byName.delete(alias);
          ambiguous.add(alias);
        }
      }
    }
    this.rejected = rejected;
  }

  /**
   * Builds the book from the AssetPairs `result` map. One malformed entry does not sink the
   * others (the exchange lists hundreds of pairs and a bot trades few); it lands in `rejected`.
   */
  static fromAssetPairs(result: Record<string, PairRulesSource>): PairRulesBook {
    const rules: PairRules[] = [];
    const rejected = new Map<string, InvalidInputError>();
    for (const [pairId, source] of Object.entries(result)) {
      try {
        rules.push(new PairRules(pairId, source));
      } catch (err) {
        if (!(err instanceof InvalidInputError)) throw err;
        rejected.set(pairId, err);
        for (const alias of [source.altname, source.wsname]) {
          if (typeof alias === 'string' && alias !== '' && !(alias in result)) {
            rejected.set(alias, err);
          }
        }
      }
    }
    return new PairRulesBook(rules, rejected);
  }

  /** The pair ids, in AssetPairs order. */
  get pairIds(): readonly string[] {
    return this.ids;
  }

  get size(): number {
    return this.ids.length;
  }

  get(pair: string): PairRules | undefined {
    return this.byName.get(pair);
  }

  /** Like get(), but an unknown pair is an InvalidInputError naming some known pairs. */
  require(pair: string): PairRules {
    const rules = this.byName.get(pair);
    if (rules !== undefined) return rules;
    const why = this.rejected.get(pair);
    if (why !== undefined) {
      throw new InvalidInputError(
        'pair',
        `${JSON.stringify(pair)} has unusable AssetPairs data (${why.message})`,
      );
    }
    const shown = this.ids.slice(0, 5).join(', ');
    const more = this.ids.length > 5 ? `, ... (${this.ids.length} in all)` : '';
    const known = this.ids.length === 0 ? 'no pairs are known' : `known: ${shown}${more}`;
    throw new InvalidInputError('pair', `unknown pair ${JSON.stringify(pair)}; ${known}`);
  }
}
