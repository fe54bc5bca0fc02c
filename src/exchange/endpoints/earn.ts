import { Type } from '@sinclair/typebox';
import { Bool, Open, Opt, Str } from './common.js';
import { privateJson } from './define.js';

export interface EarnAmountRequest {
  readonly amount: string;
  readonly strategy_id: string;
}
const TrueOrNull = Type.Union([Type.Literal(true), Type.Null()]);
const Pending = Type.Object({ pending: Bool }, { additionalProperties: true });

// Allocate and Deallocate move funds: never repeated by the transport.
export const earnAllocate = privateJson<EarnAmountRequest>()('Earn/Allocate', TrueOrNull, {
  kind: 'write',
});
export const earnDeallocate = privateJson<EarnAmountRequest>()('Earn/Deallocate', TrueOrNull, {
  kind: 'write',
});
export const earnAllocateStatus = privateJson<{ strategy_id: string }>()(
  'Earn/AllocateStatus',
  Pending,
);
export const earnDeallocateStatus = privateJson<{ strategy_id: string }>()(
  'Earn/DeallocateStatus',
  Pending,
);

export interface EarnStrategiesRequest {
  readonly ascending?: boolean;
  readonly asset?: string;
  readonly cursor?: string;
  readonly limit?: number;
  readonly lock_type?: readonly ('flex' | 'bonded' | 'timed' | 'instant')[];
}
export const earnStrategies = privateJson<EarnStrategiesRequest>()(
  'Earn/Strategies',
  Type.Object(
    {
      next_cursor: Opt(Type.Union([Str, Type.Null()])),
      items: Type.Array(
        Type.Object(
          {
            lock_type: Opt(Open),
            can_allocate: Opt(Bool),
            allocation_restriction_info: Opt(Open),
          },
          { additionalProperties: true },
        ),
      ),
    },
    { additionalProperties: true },
  ),
);

export interface EarnAllocationsRequest {
  readonly ascending?: boolean;
  readonly converted_asset?: string;
  readonly hide_zero_allocations?: boolean;
}
export const earnAllocations = privateJson<EarnAllocationsRequest>()(
  'Earn/Allocations',
  Type.Object(
    {
      converted_asset: Str,
      total_allocated: Str,
      total_rewarded: Str,
      next_cursor: Opt(Type.Union([Str, Type.Null()])),
      items: Type.Array(Type.Object({}, { additionalProperties: true })),
    },
    { additionalProperties: true },
  ),
);
