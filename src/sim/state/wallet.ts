import { Decimal } from '../../core/index.js';

export type LedgerType = 'trade' | 'deposit' | 'withdrawal' | 'transfer' | 'earn' | 'adjustment';

/** One balance change, as Ledgers reports it. */
export interface LedgerEntry {
  readonly id: string;
  readonly refid: string;
  readonly timeMs: number;
  readonly type: LedgerType;
  readonly subtype: string;
  readonly asset: string;
  /** Signed change before fee. */
  readonly amount: Decimal;
  readonly fee: Decimal;
  /** Balance after the entry. */
  readonly balance: Decimal;
}

export interface Posting {
  readonly refid: string;
  readonly timeMs: number;
  readonly type: LedgerType;
  readonly subtype?: string;
  readonly asset: string;
  readonly amount: Decimal;
  readonly fee?: Decimal;
}

const ZERO = new Decimal(0);

/**
 * One account's spot wallet: balances, holds for open orders (BalanceEx `hold_trade`) and the
 * ledger. Every balance change goes through `post`, so Ledgers always agrees with Balance.
 */
export class Wallet {
  readonly #balances = new Map<string, Decimal>();
  readonly #holds = new Map<string, Decimal>();
  readonly ledger: LedgerEntry[] = [];
  readonly #nextId: () => string;

  constructor(nextLedgerId: () => string) {
    this.#nextId = nextLedgerId;
  }

  balance(asset: string): Decimal {
    return this.#balances.get(asset) ?? ZERO;
  }

  hold(asset: string): Decimal {
    return this.#holds.get(asset) ?? ZERO;
  }

  /** Balance not held by open orders. */
  available(asset: string): Decimal {
    return this.balance(asset).minus(this.hold(asset));
  }

  /** Every asset with a balance or a hold, in first-seen order. */
  assets(): string[] {
    return [...new Set([...this.#balances.keys(), ...this.#holds.keys()])];
  }

  addHold(asset: string, amount: Decimal): void {
    if (amount.isZero()) return;
    const next = this.hold(asset).plus(amount);
    if (next.isNegative())
      throw new Error(`hold on ${asset} would go negative (${next.toFixed()})`);
    if (next.isZero()) this.#holds.delete(asset);
    else this.#holds.set(asset, next);
  }

  releaseHold(asset: string, amount: Decimal): void {
    this.addHold(asset, amount.negated());
  }

  /** Applies a change and records it; a result below zero is a bug in the caller, not a refusal. */
  post(p: Posting): LedgerEntry {
    const fee = p.fee ?? ZERO;
    const next = this.balance(p.asset).plus(p.amount).minus(fee);
    if (next.isNegative()) {
      throw new Error(`balance of ${p.asset} would go negative (${next.toFixed()}) on ${p.refid}`);
    }
    this.#balances.set(p.asset, next);
    const entry: LedgerEntry = {
      id: this.#nextId(),
      refid: p.refid,
      timeMs: p.timeMs,
      type: p.type,
      subtype: p.subtype ?? '',
      asset: p.asset,
      amount: p.amount,
      fee,
      balance: next,
    };
    this.ledger.push(entry);
    return entry;
  }

  /** Sets a balance outright (admin API), recording the difference as an adjustment. */
  set(asset: string, value: Decimal, refid: string, timeMs: number): void {
    const diff = value.minus(this.balance(asset));
    if (!diff.isZero()) this.post({ refid, timeMs, type: 'adjustment', asset, amount: diff });
    else this.#balances.set(asset, value);
  }
}
