import { invalidArguments } from '../errors.js';
import type { SimContext } from '../context.js';
import type { SimPair } from '../markets.js';

type Params = Readonly<Record<string, unknown>>;

/**
 * Request parameters as market-data routes read them. Query strings arrive as strings; Level3's
 * JSON body may carry numbers. Anything present but unusable is `EGeneral:Invalid arguments:<name>`.
 */
export function optString(params: Params, name: string): string | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalidArguments(name);
  return v;
}

/** A comma list (`pair=XBTUSD,ETHUSD`); empty entries are refused. */
export function optList(params: Params, name: string): string[] | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  const parts = Array.isArray(v) ? v : typeof v === 'string' ? v.split(',') : undefined;
  if (parts === undefined || parts.length === 0) throw invalidArguments(name);
  return parts.map((p) => {
    if (typeof p !== 'string' || p.trim() === '') throw invalidArguments(name);
    return p.trim();
  });
}

/** A non-negative integer, as a digit string or a JSON number. */
export function optInt(params: Params, name: string): number | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\d{1,15}$/.test(v)) n = Number(v);
  else throw invalidArguments(name);
  if (!Number.isSafeInteger(n) || n < 0) throw invalidArguments(name);
  return n;
}

export function intInRange(
  params: Params,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const n = optInt(params, name) ?? fallback;
  if (n < min || n > max) throw invalidArguments(name);
  return n;
}

export function intOneOf(
  params: Params,
  name: string,
  allowed: readonly number[],
  fallback: number,
): number {
  const n = optInt(params, name) ?? fallback;
  if (!allowed.includes(n)) throw invalidArguments(name);
  return n;
}

export function oneOf<T extends string>(
  params: Params,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = optString(params, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw invalidArguments(name);
  return v as T;
}

/** The required `pair`, by id, altname or wsname; `EQuery:Unknown asset pair` when not listed. */
export function requiredPair(ctx: SimContext, params: Params): SimPair {
  const name = optString(params, 'pair');
  if (name === undefined || name === '') throw invalidArguments('pair');
  return ctx.markets.requirePair(name);
}
