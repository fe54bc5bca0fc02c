/**
 * The exchange's order vocabulary (spec: AddOrder). Domain types shared by the client, the
 * simulator and the bot, so one list of order types exists.
 */
export const SIDES = ['buy', 'sell'] as const;
export type Side = (typeof SIDES)[number];

export const ORDER_TYPES = [
  'market',
  'limit',
  'stop-loss',
  'take-profit',
  'stop-loss-limit',
  'take-profit-limit',
  'trailing-stop',
  'trailing-stop-limit',
  'settle-position',
] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

/** Types a conditional close (`close[ordertype]`) may take. */
export const CLOSE_ORDER_TYPES = [
  'limit',
  'stop-loss',
  'take-profit',
  'stop-loss-limit',
  'take-profit-limit',
  'trailing-stop',
  'trailing-stop-limit',
] as const;
export type CloseOrderType = (typeof CLOSE_ORDER_TYPES)[number];

/** Types that wait for a trigger price before they reach the book. */
export const TRIGGERED_ORDER_TYPES: ReadonlySet<OrderType> = new Set(
  CLOSE_ORDER_TYPES.filter((t) => t !== 'limit'),
);

export const TIME_IN_FORCE = ['GTC', 'IOC', 'GTD'] as const;
export type TimeInForce = (typeof TIME_IN_FORCE)[number];

export const STP_TYPES = ['cancel-newest', 'cancel-oldest', 'cancel-both'] as const;
export type StpType = (typeof STP_TYPES)[number];
