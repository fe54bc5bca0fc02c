/**
 * The engine's error strings and close reasons in one place. Strings the spec states are used
 * verbatim; the rest follow its `E<Category>:<message>[:<detail>]` format and are marked
 * "(chosen)": the spec names the case but not its string.
 */
export const ERR = {
  insufficientFunds: 'EOrder:Insufficient funds',
  orderMinimum: 'EOrder:Order minimum not met',
  costMinimum: 'EOrder:Cost minimum not met',
  tickSize: 'EOrder:Tick size check failed',
  ordersLimit: 'EOrder:Orders limit exceeded',
  postOnlyMode: 'EService:Market in post_only mode',
  cannotOpenPosition: 'EOrder:Cannot open position',
  /** A post-only order that would take liquidity (chosen: the exchange's wording). */
  postOnly: 'EOrder:Post only order',
  /** EditOrder on a cancelled, expired or filled order (chosen). */
  editNotOpen: 'EOrder:Invalid order:Order is not open',
  /** EditOrder on a stop or profit order that already fired (chosen). */
  editTriggered: 'EOrder:Invalid order:Triggered orders cannot be edited',
  /** EditOrder on an order with conditional close terms (chosen). */
  editCloseTerms: 'EOrder:Invalid order:Orders with conditional close cannot be edited',
  /**
   * EditOrder whose new volume does not exceed what already executed (chosen). Equal counts: the
   * replacement would have nothing left to trade.
   */
  editVolume: 'EOrder:Invalid order:Executed volume exceeds new volume',
} as const;

/** `reason` of closed orders. */
export const REASON = {
  user: 'User requested',
  replaced: 'Order replaced',
  insufficientFunds: 'Insufficient funds',
  selfTrade: 'Self trade prevention',
  postOnly: 'Post only order',
  /** IOC remainder that found nothing more to take. */
  immediateOrCancel: 'Immediate or cancel',
  /** Market remainder beyond 1 % of the best price at entry (no `nompp`). */
  priceProtection: 'Market price protection',
  /** Market remainder with no more liquidity on the other side. */
  noLiquidity: 'Insufficient liquidity',
} as const;
