import { Decimal, InvalidInputError } from '../core/index.js';

/**
 * How a decrease of a price level that trades do not explain (a cancel somewhere in the queue) is
 * split between the volume ahead of our order and the volume behind it, when only Depth is seen:
 * hftbacktest's probabilistic queue models. With f the rule's shape, the share taken from behind
 * is f(behind) / (f(behind) + f(ahead)), the rest from ahead:
 *
 *   linear       f(x) = x          cancels are spread evenly over the queue's volume
 *   power, n     f(x) = x^n        n > 1: the larger side takes even more of them
 *   log          f(x) = ln(1 + x)  closer to an even split between the two sides
 *   risk-averse  f(x) = 0          never ahead: only trades move us forward (hftbacktest's
 *                                  RiskAdverseQueueModel), unless behind cannot hold the decrease
 *
 * One rule serves the live queue estimator and the replay's Depth-only fill model, so the rule
 * chosen for live trading is the rule replayed.
 */
export type QueueRule =
  | { readonly kind: 'linear' }
  | { readonly kind: 'power'; readonly n: number }
  | { readonly kind: 'log' }
  | { readonly kind: 'risk-averse' };

export const DEFAULT_QUEUE_RULE: QueueRule = Object.freeze({ kind: 'log' });

const ZERO = new Decimal(0);

/** `linear`, `log`, `risk-averse`, `power` (n = 2) or `power:N` (N > 0). */
export function parseQueueRule(text: string, field: string): QueueRule {
  const t = text.trim().toLowerCase();
  if (t === 'linear') return { kind: 'linear' };
  if (t === 'log') return { kind: 'log' };
  if (t === 'risk-averse') return { kind: 'risk-averse' };
  const power = /^power(?::(\d+(?:\.\d+)?))?$/.exec(t);
  if (power !== null) {
    const n = power[1] === undefined ? 2 : Number(power[1]);
    if (n > 0 && n <= 10) return { kind: 'power', n };
  }
  throw new InvalidInputError(
    field,
    `${JSON.stringify(text)} is not a queue rule; use linear, log, risk-averse, power or power:N (0 < N <= 10)`,
  );
}

export function queueRuleName(rule: QueueRule): string {
  return rule.kind === 'power' ? `power:${rule.n}` : rule.kind;
}

function shape(rule: QueueRule, x: Decimal): Decimal {
  switch (rule.kind) {
    case 'linear':
      return x;
    case 'power':
      return x.pow(rule.n);
    case 'log':
      return x.plus(1).ln();
    case 'risk-averse':
      return ZERO;
  }
}

/**
 * The part of `decrease` (level volume gone, trades already taken off) that came from ahead of our
 * order, by the rule: never more than `ahead`, and never so little that behind would go negative.
 */
export function fromAhead(
  rule: QueueRule,
  ahead: Decimal,
  behind: Decimal,
  decrease: Decimal,
): Decimal {
  if (!decrease.gt(0)) return ZERO;
  const a = ahead.gt(0) ? ahead : ZERO;
  const b = behind.gt(0) ? behind : ZERO;
  const fa = shape(rule, a);
  const fb = shape(rule, b);
  const total = fa.plus(fb);
  let taken = total.isZero() ? ZERO : decrease.times(fa).div(total);
  if (decrease.minus(taken).gt(b)) taken = decrease.minus(b);
  return taken.gt(a) ? a : taken;
}
