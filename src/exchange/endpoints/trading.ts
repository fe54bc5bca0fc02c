import type { CloseOrderType, OrderType, Side } from '../../core/index.js';
import { Type } from '@sinclair/typebox';
import { Int, OpenObject, Opt, Str } from './common.js';
import { privateForm, privateJson } from './define.js';
import { checkOrderEntry } from './order-checks.js';

export type { Side, OrderType, CloseOrderType };

export interface CloseTerms {
  readonly ordertype: CloseOrderType;
  readonly price?: string;
  readonly price2?: string;
}

/** AddOrder fields as the spec names them; `close` is sent as `close[ordertype]` and so on. */
export interface OrderFields {
  readonly userref?: number;
  readonly ordertype: OrderType;
  readonly type: Side;
  readonly volume: string;
  readonly displayvol?: string;
  readonly price?: string;
  readonly price2?: string;
  readonly trigger?: 'last' | 'index';
  readonly leverage?: string;
  readonly reduce_only?: boolean;
  readonly stptype?: 'cancel-newest' | 'cancel-oldest' | 'cancel-both';
  /** Comma list of post, fcib, fciq, nompp, viqc. */
  readonly oflags?: string;
  readonly timeinforce?: 'GTC' | 'IOC' | 'GTD';
  /** `0`, a Unix time, or `+<n>` seconds. */
  readonly starttm?: string;
  readonly expiretm?: string;
  readonly close?: CloseTerms;
}

export interface AddOrderRequest extends OrderFields {
  readonly pair: string;
  /** RFC 3339; the engine rejects the order if it handles it later (now+2 s to now+60 s). */
  readonly deadline?: string;
  readonly validate?: boolean;
}

const OrderEntry = { kind: 'order-entry', restCost: 0 } as const;

export const addOrder = privateForm<AddOrderRequest>()(
  'AddOrder',
  Type.Object(
    {
      descr: Type.Object({ order: Str }, { additionalProperties: true }),
      txid: Opt(Type.Array(Str)),
    },
    { additionalProperties: true },
  ),
  {
    ...OrderEntry,
    check: (q: AddOrderRequest, rules) => checkOrderEntry(rules, 'AddOrder', q.pair, [q]),
  },
);

export interface AddOrderBatchRequest {
  /** At most 15, all for `pair`. */
  readonly orders: readonly OrderFields[];
  readonly pair: string;
  readonly deadline?: string;
  readonly validate?: boolean;
}
export const addOrderBatch = privateJson<AddOrderBatchRequest>()(
  'AddOrderBatch',
  // The shape of each returned order entry is not shown beyond its order id.
  Type.Object({ orders: Type.Array(OpenObject) }, { additionalProperties: true }),
  {
    ...OrderEntry,
    check: (q: AddOrderBatchRequest, rules) =>
      checkOrderEntry(rules, 'AddOrderBatch', q.pair, q.orders),
  },
);

export interface EditOrderRequest {
  /** Order id or userref (a userref shared by several orders is rejected). */
  readonly txid: string | number;
  readonly pair: string;
  readonly volume?: string;
  readonly displayvol?: string;
  readonly price?: string;
  readonly price2?: string;
  readonly userref?: number;
  /** Only `post` can change, and it must be set again to be kept. */
  readonly oflags?: string;
  readonly deadline?: string;
  readonly cancel_response?: boolean;
  readonly validate?: boolean;
}
export const editOrder = privateForm<EditOrderRequest>()(
  'EditOrder',
  Type.Object(
    { descr: Opt(Type.Object({ order: Str }, { additionalProperties: true })), txid: Opt(Str) },
    { additionalProperties: true },
  ),
  {
    ...OrderEntry,
    check: (q: EditOrderRequest, rules) => checkOrderEntry(rules, 'EditOrder', q.pair, [q]),
  },
);

const Count = Type.Object({ count: Int }, { additionalProperties: true });

export interface CancelOrderRequest {
  /** Order id or userref. */
  readonly txid: string | number;
}
export const cancelOrder = privateForm<CancelOrderRequest>()('CancelOrder', Count, OrderEntry);

// CancelAll and CancelAllOrdersAfter cost 1 on the REST counter (DESIGN.md §3.4) and are safe to
// repeat, but the transport still leaves repeating them to the caller.
export const cancelAll = privateForm<Record<string, never>>()('CancelAll', Count, {
  kind: 'write',
});

export interface CancelAllOrdersAfterRequest {
  /** Seconds, under 86400; 0 disarms the timer. */
  readonly timeout: number;
}
export const cancelAllOrdersAfter = privateForm<CancelAllOrdersAfterRequest>()(
  'CancelAllOrdersAfter',
  Type.Object({ currentTime: Str, triggerTime: Str }, { additionalProperties: true }),
  { kind: 'write' },
);

export interface CancelOrderBatchRequest {
  /** At most 50 unique order ids or userrefs. */
  readonly orders: readonly (string | number)[];
}
export const cancelOrderBatch = privateJson<CancelOrderBatchRequest>()(
  'CancelOrderBatch',
  Count,
  OrderEntry,
);
