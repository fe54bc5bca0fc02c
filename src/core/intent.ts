import { InvalidInputError } from './errors.js';
import type { SlotRef } from './market.js';
import type { Side } from './order-types.js';

/**
 * Order intents: what the runner wants done to one quote slot, carried to the executor through
 * the intent bus (src/bus). Intents are plain JSON (decimal strings, epoch milliseconds) because
 * they cross Redis.
 */

export type IntentAction = 'place' | 'amend' | 'cancel';

/** The order a slot should hold. Prices and volumes are wire decimal strings. */
export interface DesiredOrder {
  readonly side: Side;
  readonly price: string;
  readonly volume: string;
  readonly postOnly: boolean;
}

/** The live order an amend or cancel acts on. */
export interface IntentTarget {
  readonly txid: string;
  readonly userref: number | null;
  readonly price: string;
  /** The order's total volume; with volumeExecuted the executor derives an amend's quantity. */
  readonly volume: string;
  readonly volumeExecuted: string;
  readonly openedAtMs: number;
}

export interface OrderIntent {
  /** The bot instance (0..127) whose userrefs this intent's orders carry. */
  readonly instance: number;
  /** Exchange pair id, e.g. XXBTZUSD. */
  readonly pair: string;
  /** Slot key, see slotKey(): `bid:0`, `ask:2`. */
  readonly slot: string;
  /** Monotonic per (pair, slot), assigned by the bus when published; 0 before. */
  readonly generation: number;
  readonly action: IntentAction;
  /** For place and amend: the order the slot should hold afterwards (volume still to fill). */
  readonly desired: DesiredOrder | undefined;
  /** For amend and cancel: the live order acted on. */
  readonly target: IntentTarget | undefined;
  /** Why: `new`, `moved`, `resized`, `max-age`, `pulled:stale`, `pulled:mode`, `pulled:strategy`. */
  readonly reason: string;
  readonly createdAtMs: number;
  /** Not to be sent after this time (epoch ms); the order-entry call's `deadline` is at most this. */
  readonly deadlineMs: number;
  /** The snapshot the intent came from, and when it was ready (built): tick-to-wire starts there. */
  readonly snapshotSeq: number;
  readonly snapshotAtMs: number;
  /**
   * The runner saw the key's open orders as the exchange had them at a moment no earlier than
   * this (epoch ms; when its OpenOrders call was made). An order of ours the executor knew open
   * before then, in a slot the runner found empty, has left the book; absent when unknown.
   */
  readonly ordersAsOfMs?: number | undefined;
  /**
   * For a place or amend: the price levels the runner's Depth showed on the slot's side, best
   * first, asked for at `asOfMs`. An order of ours at a price within them that is not one of
   * them, open well before then, has left the book.
   */
  readonly depthSeen?: DepthSeen | undefined;
}

export interface DepthSeen {
  readonly asOfMs: number;
  readonly prices: readonly string[];
}

export function slotKey(slot: SlotRef): string {
  return `${slot.side === 'buy' ? 'bid' : 'ask'}:${slot.level}`;
}

export function parseSlotKey(key: string): SlotRef {
  const m = /^(bid|ask):(\d{1,3})$/.exec(key);
  const level = m ? Number(m[2]) : NaN;
  if (!m || level > MAX_LEVEL) {
    throw new InvalidInputError(
      'slot',
      `expected bid:N or ask:N with N in 0..${MAX_LEVEL}, got ${JSON.stringify(key)}`,
    );
  }
  return { side: m[1] === 'bid' ? 'buy' : 'sell', level };
}

/**
 * userref layout (int32, always positive): 7 bits instance | 8 bits slot | 16 bits generation.
 * The slot byte is level * 2 + (sell ? 1 : 0), so 128 levels a side. The generation wraps at
 * 65536; it only needs to tell apart the few orders of one slot that can be in flight at once.
 * Instance 0 is reserved so that userref 0 (no userref) never looks like ours.
 */
export const MAX_INSTANCE = 127;
export const MAX_LEVEL = 127;
const GENERATION_MOD = 0x10000;

export interface DecodedUserref {
  readonly instance: number;
  readonly slot: SlotRef;
  readonly generation: number;
}

export function encodeUserref(instance: number, slot: SlotRef, generation: number): number {
  if (!Number.isInteger(instance) || instance < 1 || instance > MAX_INSTANCE) {
    throw new InvalidInputError(
      'instance',
      `must be an integer in 1..${MAX_INSTANCE}, got ${instance}`,
    );
  }
  if (!Number.isInteger(slot.level) || slot.level < 0 || slot.level > MAX_LEVEL) {
    throw new InvalidInputError(
      'slot.level',
      `must be an integer in 0..${MAX_LEVEL}, got ${slot.level}`,
    );
  }
  if (!Number.isInteger(generation) || generation < 0) {
    throw new InvalidInputError('generation', `must be a non-negative integer, got ${generation}`);
  }
  const slotByte = slot.level * 2 + (slot.side === 'sell' ? 1 : 0);
  return instance * 0x1000000 + slotByte * GENERATION_MOD + (generation % GENERATION_MOD);
}

/** The instance, slot and generation a userref encodes, or undefined when it is not a makerd one. */
export function decodeUserref(userref: number | null | undefined): DecodedUserref | undefined {
  if (userref === null || userref === undefined || !Number.isInteger(userref) || userref <= 0) {
    return undefined;
  }
  if (userref > 0x7fffffff) return undefined;
  const instance = Math.floor(userref / 0x1000000);
  if (instance < 1) return undefined;
  const slotByte = Math.floor(userref / GENERATION_MOD) % 0x100;
  return {
    instance,
    slot: { side: slotByte % 2 === 1 ? 'sell' : 'buy', level: Math.floor(slotByte / 2) },
    generation: userref % GENERATION_MOD,
  };
}
