import type { IncomingHttpHeaders } from 'node:http';
import type { Account } from '../state/accounts.js';
import type { PermissionRule } from '../state/permissions.js';
import type { SimContext } from '../context.js';

export type Family = 'public' | 'private' | 'futures' | 'custody';

/** A request that passed the door (routing, auth, nonce, permission, limits). */
export interface SimRequest {
  readonly family: Family;
  /** `AddOrder`, `Earn/Allocate`; for futures and custody the route's name. */
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /**
   * Public, futures and custody: query parameters (strings). Private: the form fields (strings,
   * keys verbatim such as `close[ordertype]`) or the JSON body's values.
   */
  readonly params: Readonly<Record<string, unknown>>;
  /** Path parameters of pattern routes (`rfqUid`, `vault_id`). */
  readonly pathParams: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** Set for every authenticated family. */
  readonly account: Account | undefined;
  readonly traceId: string;
  readonly nowMs: number;
  /** Remote address, for per-client limits. */
  readonly clientId: string;
}

/** A spot answer: the envelope's result, plus `W...` warnings. */
export interface ResultReply {
  readonly result: unknown;
  readonly warnings?: readonly string[];
}

/** Anything else: futures and custody bodies, binary exports, 202s. */
export interface RawReply {
  readonly status: number;
  readonly body: unknown;
  readonly contentType?: string;
}

export type Reply = ResultReply | RawReply;

export function ok(result: unknown, warnings?: readonly string[]): ResultReply {
  return warnings === undefined ? { result } : { result, warnings };
}

export function raw(status: number, body: unknown, contentType?: string): RawReply {
  return contentType === undefined ? { status, body } : { status, body, contentType };
}

export function isRawReply(reply: Reply): reply is RawReply {
  return 'status' in reply;
}

export interface Route {
  readonly family: Family;
  /**
   * Spot: the name after `/0/public/` or `/0/private/`. Futures and custody: a path pattern with
   * `:param` segments, e.g. `/derivatives/api/v3/rfqs/open-rfqs/accept-offer/:rfqUid`.
   */
  readonly name: string;
  /** Futures and custody routes say their method; spot families are fixed (GET / POST). */
  readonly method?: 'GET' | 'POST';
  /** Any one of these permissions passes; [] = a valid key. Private families only. */
  readonly permission?: PermissionRule;
  /**
   * Points on the key's REST counter: 1 by default, 2 for ledger and trade-history reads, 0 for
   * order entry (it goes through the matching-engine ratecount instead).
   */
  readonly restCost?: number;
  handle(req: SimRequest, ctx: SimContext): Reply | Promise<Reply>;
}
