import { InvalidInputError } from '../core/index.js';
import { busError, BusError } from './errors.js';
import type { Redis } from 'ioredis';

/**
 * The key's open orders as the runner's last OpenOrders call saw them (`open` is that call's
 * result, txid → order, as the exchange client decoded it). The runner writes each one; the
 * executor's next job of each pair reads the newest, and its tracker derives our fills from it.
 */
export interface StoredOrdersView {
  readonly askedAtMs: number;
  readonly open: Readonly<Record<string, unknown>>;
}

export function checkOrdersView(view: StoredOrdersView): void {
  if (!Number.isFinite(view.askedAtMs)) {
    throw new InvalidInputError('view.askedAtMs', `must be a finite number, got ${view.askedAtMs}`);
  }
}

/** Writes the view under `prefix` unless a newer one is there. */
export async function storeOrdersView(
  redis: Redis,
  prefix: string,
  view: StoredOrdersView,
): Promise<void> {
  checkOrdersView(view);
  const key = ordersViewKey(prefix);
  try {
    // A view older than the stored one (two runners, or a slow answer) never replaces it.
    await redis.eval(KEEP_NEWEST, 1, key, String(view.askedAtMs), JSON.stringify(view));
  } catch (err) {
    throw busError(err, key, `writing ${key}`);
  }
}

/** The newest view written, or undefined when none was. */
export async function loadOrdersView(
  redis: Redis,
  prefix: string,
): Promise<StoredOrdersView | undefined> {
  const key = ordersViewKey(prefix);
  let json: string | null;
  try {
    json = await redis.hget(key, 'view');
  } catch (err) {
    throw busError(err, key, `reading ${key}`);
  }
  if (json === null) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new BusError('BUS_CORRUPT', key, 'view', `Redis key ${key} holds no JSON`, err);
  }
  const v = value as Partial<StoredOrdersView> | null;
  if (typeof v?.askedAtMs !== 'number' || typeof v.open !== 'object' || v.open === null) {
    throw new BusError('BUS_CORRUPT', key, 'view', `Redis key ${key} holds no orders view`);
  }
  return { askedAtMs: v.askedAtMs, open: v.open };
}

function ordersViewKey(prefix: string): string {
  return `${prefix}:orders-view`;
}

const KEEP_NEWEST = `
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '-1')
if tonumber(ARGV[1]) <= at then return 0 end
redis.call('HSET', KEYS[1], 'at', ARGV[1], 'view', ARGV[2])
return 1
`;
