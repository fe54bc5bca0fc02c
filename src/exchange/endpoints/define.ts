import type { Static, TSchema } from '@sinclair/typebox';
import type { PairRulesBook } from '../pair-rules.js';
import { ResultSchema } from '../parse/schema.js';

/** How a family authenticates and wraps its answers. */
export type Family = 'public' | 'private' | 'futures' | 'custody';

/**
 * What the transport may do on failure (issue 2, item 9): reads retry, order entry never does,
 * other writes (funding, earn, pay) never do either.
 */
export type CallKind = 'read' | 'order-entry' | 'write';

export type Envelope = 'spot' | 'pay' | 'otc' | 'futures' | 'custody';

export interface Endpoint<Req, Res> {
  /** The spec's name, e.g. `AddOrder`, `Earn/Allocate`. */
  readonly name: string;
  readonly family: Family;
  readonly method: 'GET' | 'POST';
  /** Path from the host, e.g. `/0/private/AddOrder`; may take path parameters from the request. */
  readonly path: (req: Req) => string;
  /** Request fields that went into the path and must not be sent again. */
  readonly pathParams: readonly string[];
  readonly encoding: 'query' | 'form' | 'json';
  readonly kind: CallKind;
  /** Points on the key's REST call counter (DESIGN.md §3.4); 0 for order entry. */
  readonly restCost: number;
  readonly envelope: Envelope;
  /** Integers beyond 2^53 in the body (Level3 timestamps): parse losslessly. */
  readonly bigInts: boolean;
  /** The spec returns a binary archive (RetrieveExport). */
  readonly binary: boolean;
  /** How the nonce goes into a JSON body (Pay wants a string). */
  readonly nonceAs: 'number' | 'string';
  /**
   * Checks the request before it spends anything (REST budget, a nonce, the network): order entry
   * against the pair's rules, fields whose combination the types cannot say. Throws a typed error.
   */
  readonly check: ((req: Req, rules: PairRulesBook | undefined) => void) | undefined;
  /** Validates the unwrapped result and shapes it; throws ResponseParseError. */
  readonly decode: (raw: unknown, traceId: string | undefined) => Res;
  /** Phantom field so request types survive inference. */
  readonly __req?: Req;
}

interface Options<S extends TSchema, Res> {
  readonly kind?: CallKind;
  readonly restCost?: number;
  readonly bigInts?: boolean;
  readonly binary?: boolean;
  readonly nonceAs?: 'number' | 'string';
  readonly envelope?: Envelope;
  readonly method?: 'GET' | 'POST';
  readonly path?: (req: never) => string;
  readonly pathParams?: readonly string[];
  readonly check?: (req: never, rules: PairRulesBook | undefined) => void;
  readonly transform?: (value: Static<S>) => Res;
}

function build<Req, S extends TSchema, Res>(
  name: string,
  family: Family,
  encoding: 'query' | 'form' | 'json',
  defaultPath: string,
  schema: S,
  options: Options<S, Res>,
): Endpoint<Req, Res> {
  const check = new ResultSchema(schema);
  const transform = options.transform;
  return {
    name,
    family,
    method: options.method ?? (family === 'public' ? 'GET' : 'POST'),
    path: (options.path as ((req: Req) => string) | undefined) ?? (() => defaultPath),
    pathParams: options.pathParams ?? [],
    encoding,
    kind: options.kind ?? 'read',
    restCost: options.restCost ?? (family === 'private' ? 1 : 0),
    envelope:
      options.envelope ??
      (family === 'futures' ? 'futures' : family === 'custody' ? 'custody' : 'spot'),
    bigInts: options.bigInts ?? false,
    binary: options.binary ?? false,
    nonceAs: options.nonceAs ?? 'number',
    check: options.check as ((req: Req, rules: PairRulesBook | undefined) => void) | undefined,
    decode: (raw, traceId) => {
      const value = check.assert(raw, name, traceId);
      return transform === undefined ? (value as Res) : transform(value);
    },
  };
}

/** `GET /0/public/<name>` with a query string. */
export function publicGet<Req>() {
  return <S extends TSchema, Res = Static<S>>(
    name: string,
    schema: S,
    options: Options<S, Res> = {},
  ) => build<Req, S, Res>(name, 'public', 'query', `/0/public/${name}`, schema, options);
}

/** `POST /0/private/<name>` with a form body. */
export function privateForm<Req>() {
  return <S extends TSchema, Res = Static<S>>(
    name: string,
    schema: S,
    options: Options<S, Res> = {},
  ) => build<Req, S, Res>(name, 'private', 'form', `/0/private/${name}`, schema, options);
}

/** `POST /0/private/<name>` with a JSON body. */
export function privateJson<Req>() {
  return <S extends TSchema, Res = Static<S>>(
    name: string,
    schema: S,
    options: Options<S, Res> = {},
  ) => build<Req, S, Res>(name, 'private', 'json', `/0/private/${name}`, schema, options);
}

/** A futures-host call (`APIKey` / `Authent`), query parameters only. */
export function futuresCall<Req>() {
  return <S extends TSchema, Res = Static<S>>(
    name: string,
    path: string,
    schema: S,
    options: Options<S, Res> = {},
  ) => build<Req, S, Res>(name, 'futures', 'query', path, schema, options);
}

/** A custody call (`api-key` / `api-nonce` / `api-sign`), query parameters only. */
export function custodyCall<Req>() {
  return <S extends TSchema, Res = Static<S>>(
    name: string,
    path: string,
    schema: S,
    options: Options<S, Res> = {},
  ) => build<Req, S, Res>(name, 'custody', 'query', path, schema, options);
}
