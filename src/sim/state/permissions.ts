/**
 * API key permissions, named after the exchange's key settings (spec: Authentication 5):
 * funds query/withdraw/earn, orders and trades query open/closed, create & modify, cancel & close,
 * ledger query, data export, websocket.
 */
export const PERMISSIONS = [
  'funds-query',
  'funds-withdraw',
  'funds-earn',
  'orders-query-open',
  'orders-query-closed',
  'orders-create',
  'orders-cancel',
  'ledger-query',
  'data-export',
  'websocket',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * What a route needs: any one of the listed permissions passes. `[]` means a valid key is enough
 * (Earn Strategies, and the endpoints whose permission the spec does not show).
 */
export type PermissionRule = readonly Permission[];

export function permits(granted: ReadonlySet<Permission>, rule: PermissionRule): boolean {
  return rule.length === 0 || rule.some((p) => granted.has(p));
}
