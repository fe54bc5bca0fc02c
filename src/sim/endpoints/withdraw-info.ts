/**
 * WithdrawInfo (deprecated in the spec, still served): the fee and limit of a potential
 * withdrawal through one of the caller's withdrawal keys (see funding.ts for the keys and fees).
 *
 * Result `{method, limit, amount, fee}`: `amount` is what would be sent (the requested gross
 * amount minus the fee), `limit` the most that could be sent right now (available balance minus
 * the fee, never negative). Errors match Withdraw: `EFunding:Unknown withdraw key`,
 * `EFunding:Invalid amount` (below the method minimum or not above the fee). Both funds
 * permissions are required, as the spec lists them.
 */
import { Decimal, toWire } from '../../core/index.js';
import type { SimContext } from '../context.js';
import { SimError } from '../errors.js';
import { ok, type Route } from '../http/route.js';
import { withdrawalMethod, withdrawKeysOf } from './funding.js';
import { requireText } from './order-params.js';
import { callerOf, requireAmount } from './support.js';

export function withdrawInfoRoutes(ctx: SimContext): Route[] {
  return [
    {
      family: 'private',
      name: 'WithdrawInfo',
      permission: ['funds-query', 'funds-withdraw'],
      handle: (req) => {
        const account = callerOf(req);
        if (!account.permissions.has('funds-query') || !account.permissions.has('funds-withdraw')) {
          throw new SimError('EGeneral:Permission denied');
        }
        const asset = ctx.markets.requireAsset(requireText(req.params, 'asset'));
        const keyName = requireText(req.params, 'key');
        const amount = requireAmount(req.params, 'amount', asset);
        const key = withdrawKeysOf(ctx, account).find((k) => k.key === keyName);
        const method = key === undefined ? undefined : withdrawalMethod(key.asset, key.method);
        if (key === undefined || method === undefined || key.asset !== asset.id) {
          throw new SimError('EFunding:Unknown withdraw key');
        }
        if (amount.lt(method.minimum) || amount.lte(method.fee)) {
          throw new SimError('EFunding:Invalid amount');
        }
        const limit = Decimal.max(0, account.wallet.available(asset.id).minus(method.fee));
        return ok({
          method: key.method,
          limit: toWire(limit),
          amount: toWire(amount.minus(method.fee)),
          fee: toWire(method.fee),
        });
      },
    },
  ];
}
