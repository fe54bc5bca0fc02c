import type {
  AddOrderBatchRequest,
  AddOrderRequest,
  EditOrderRequest,
  OrderFields,
} from '../exchange/index.js';
import type { AddItem, EditItem } from './plan/index.js';

/** The order-entry requests the executor sends. */

/** One order of an AddOrder or AddOrderBatch: limit, fees in the quote asset (fciq). */
export function addFields(userref: number, item: AddItem): OrderFields {
  return {
    userref,
    ordertype: 'limit',
    type: item.side,
    volume: item.volume,
    price: item.price,
    oflags: item.postOnly ? 'post,fciq' : 'fciq',
  };
}

export function addOrderRequest(
  pair: string,
  fields: OrderFields,
  deadline: string,
): AddOrderRequest {
  return { pair, ...fields, deadline };
}

export function addOrderBatchRequest(
  pair: string,
  orders: readonly OrderFields[],
  deadline: string,
): AddOrderBatchRequest {
  return { pair, orders, deadline };
}

/** Moves `txid` to the item's price and volume under a new userref (EditOrder gives a new txid). */
export function editOrderRequest(
  txid: string,
  pair: string,
  item: EditItem,
  userref: number,
  deadline: string,
): EditOrderRequest {
  return {
    txid,
    pair,
    volume: item.volume,
    price: item.price,
    userref,
    // post-only must be sent again to be kept (the spec).
    ...(item.postOnly ? { oflags: 'post' } : {}),
    deadline,
  };
}
