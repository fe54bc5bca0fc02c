import { Decimal } from '../../core/index.js';
import type { Side } from './types.js';

const ZERO = new Decimal(0);

/** One ledger entry of a fill: signed amount before fee, and the fee charged on that entry. */
export interface LegEntry {
  readonly amount: Decimal;
  readonly fee: Decimal;
}

/**
 * What one side of a fill does to its account. Fees are exact (no rounding), so fills conserve
 * every asset to the last digit: what one side gives, the other gets, plus the fee collected.
 */
export interface Leg {
  /** Leaves the order's hold asset (quote for a buy, base for a sell), fee included if in it. */
  readonly debit: Decimal;
  readonly fee: Decimal;
  readonly feeIn: 'base' | 'quote';
  readonly base: LegEntry;
  readonly quote: LegEntry;
}

/**
 * A fee in base is taken from the base received (buy) or added to the base given (sell); a fee in
 * quote is added to the quote paid (buy) or taken from the quote received (sell).
 */
export function legOf(
  side: Side,
  feeInBase: boolean,
  vol: Decimal,
  cost: Decimal,
  rate: Decimal,
): Leg {
  if (side === 'buy') {
    if (feeInBase) {
      const fee = vol.times(rate);
      return {
        debit: cost,
        fee,
        feeIn: 'base',
        base: { amount: vol, fee },
        quote: { amount: cost.negated(), fee: ZERO },
      };
    }
    const fee = cost.times(rate);
    return {
      debit: cost.plus(fee),
      fee,
      feeIn: 'quote',
      base: { amount: vol, fee: ZERO },
      quote: { amount: cost.negated(), fee },
    };
  }
  if (feeInBase) {
    const fee = vol.times(rate);
    return {
      debit: vol.plus(fee),
      fee,
      feeIn: 'base',
      base: { amount: vol.negated(), fee },
      quote: { amount: cost, fee: ZERO },
    };
  }
  const fee = cost.times(rate);
  return {
    debit: vol,
    fee,
    feeIn: 'quote',
    base: { amount: vol.negated(), fee: ZERO },
    quote: { amount: cost, fee },
  };
}
