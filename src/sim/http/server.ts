import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SimContext } from '../context.js';
import { SimError, SimHttpError } from '../errors.js';
import { iso } from '../state/status.js';
import { permits } from '../state/permissions.js';
import { handleAdmin } from './admin.js';
import { Door, problem } from './auth.js';
import { send } from './json.js';
import { isRawReply, type Family, type Reply, type Route, type SimRequest } from './route.js';
import type { Router } from './router.js';

const MAX_BODY_BYTES = 1 << 20;

/** A request as the listener read it off the socket, or as an in-process caller builds it. */
export interface SimRequestInput {
  readonly method: string;
  /** Path and query, as in the request line: `/0/public/Depth?pair=XBTUSD`. */
  readonly target: string;
  /** Lower-case names, as node:http gives them. */
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  /** The caller's address, for the per-client public limit. */
  readonly clientId: string;
  readonly traceId: string;
}

export interface SimAnswer {
  readonly status: number;
  /** A value for toJson, or raw text/bytes with `contentType`. */
  readonly body: unknown;
  readonly contentType?: string;
  readonly traceId: string;
  /** A fault asked for the connection to be dropped instead of answered. */
  readonly dropResponse: boolean;
}

interface Target {
  readonly family: Family;
  readonly name: string;
}

/**
 * The simulator's HTTP face: routing by the spec's paths, the door (auth, nonce, permission,
 * limits), faults, the envelope and an `x-trace-id` on every answer. Handlers see only a
 * SimRequest and answer a result or throw the spec's error string.
 */
export class SimServer {
  readonly #ctx: SimContext;
  readonly #router: Router;
  readonly #door: Door;
  readonly #server: Server;
  readonly #runTicks: (nowMs: number) => void;
  /** Refusals and errors answered, by error string, for /_sim/state. */
  readonly rejections = new Map<string, number>();
  #url = '';

  constructor(ctx: SimContext, router: Router, runTicks: (nowMs: number) => void) {
    this.#ctx = ctx;
    this.#router = router;
    this.#runTicks = runTicks;
    this.#door = new Door(ctx.accounts, ctx.config.invalid_key_lockout);
    this.#server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
      void this.#serve(req, res);
    });
  }

  get url(): string {
    return this.#url;
  }

  async listen(port: number, host: string): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const address = this.#server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.#url = `http://${shownHost}:${address.port}`;
    return this.#url;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const traceId = randomUUID();
    res.setHeader('x-trace-id', traceId);
    let rawBody: Buffer;
    try {
      rawBody = await readBody(req);
    } catch {
      send(res, 413, { error: ['EGeneral:Invalid arguments:body too large'] });
      return;
    }
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    if (path.startsWith('/_sim/')) {
      handleAdmin(this.#ctx, this.rejections, req, res, path, rawBody);
      return;
    }
    const answer = await this.handle({
      method: req.method ?? 'GET',
      target,
      headers: req.headers,
      rawBody,
      clientId: req.socket.remoteAddress ?? 'unknown',
      traceId,
    });
    if (answer.dropResponse) {
      req.socket.destroy();
      return;
    }
    send(res, answer.status, answer.body, answer.contentType);
  }

  /**
   * One exchange request, answered without a socket: what the HTTP listener runs for every path
   * but the admin API's, so an in-process caller (replay's transport) meets the same door,
   * limits, faults and handlers. The body is a value for `toJson` (or raw text/bytes).
   */
  async handle(request: SimRequestInput): Promise<SimAnswer> {
    const { target, traceId } = request;
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    const query = q === -1 ? '' : target.slice(q + 1);
    const answer = (status: number, body: unknown, contentType?: string): SimAnswer =>
      contentType === undefined
        ? { status, body, traceId, dropResponse: false }
        : { status, body, contentType, traceId, dropResponse: false };

    const where = targetOf(path);
    if (where === undefined) return answer(404, { error: ['EGeneral:Unknown method'] });
    const nowMs = this.#ctx.clock.now();
    this.#runTicks(nowMs);

    const fault = this.#ctx.faults.decide(where.name, path);
    if (fault.latencyMs > 0) await this.#ctx.clock.sleep(fault.latencyMs);
    if (fault.before === 'http5xx') return answer(502, 'Bad Gateway', 'text/plain');
    const spot = where.family === 'public' || where.family === 'private';
    if (fault.before !== undefined) {
      const error =
        fault.before === 'unavailable'
          ? 'EService:Unavailable'
          : `EService:Throttled: ${Math.floor(nowMs / 1000) + fault.throttleSeconds}`;
      this.#count(error);
      return spot
        ? answer(200, { error: [error] })
        : answer(503, problem(503, 'gateway/Connect', error, traceId));
    }

    let status = 200;
    let body: unknown;
    let contentType: string | undefined;
    try {
      const admitted = this.#admit(request, where, path, query, this.#ctx.clock.now());
      const reply = await admitted.route.handle(admitted.request, this.#ctx);
      ({ status, body, contentType } = this.#shape(reply, spot));
    } catch (err) {
      if (err instanceof SimError) {
        this.#count(err.errorString);
        status = 200;
        body = { error: [err.errorString] };
        if (err.errorString === 'EGeneral:Unknown method') status = 404;
        if (err.errorString === 'EGeneral:Invalid arguments:method') status = 405;
      } else if (err instanceof SimHttpError) {
        this.#count(`HTTP ${err.status}`);
        status = err.status;
        body = err.body;
      } else {
        // A bug in the simulator: say so plainly rather than pretend the exchange refused.
        this.#count('EGeneral:Internal error');
        status = 500;
        body = { error: [`EGeneral:Internal error:${(err as Error).message}`] };
      }
    }
    return { ...answer(status, body, contentType), dropResponse: fault.dropResponse };
  }

  /** Runs the door for one request; throws the refusal. */
  #admit(
    req: SimRequestInput,
    where: Target,
    path: string,
    query: string,
    nowMs: number,
  ): { route: Route; request: SimRequest } {
    const { method, clientId, traceId, rawBody } = req;
    const base = { path, headers: req.headers, traceId, nowMs, clientId, method };
    const ctx = this.#ctx;

    if (where.family === 'public' || where.family === 'private') {
      const ua = req.headers['user-agent'];
      if (typeof ua !== 'string' || ua === '')
        throw new SimError('EGeneral:Invalid arguments:User-Agent');
      const route = this.#router.spot(where.family, where.name);
      if (route === undefined) throw new SimError('EGeneral:Unknown method');
      if (where.family === 'public') {
        if (method !== 'GET') throw new SimError('EGeneral:Invalid arguments:method');
        ctx.limits.chargePublic(clientId, nowMs);
        const params = Object.fromEntries(new URLSearchParams(query));
        return {
          route,
          request: {
            ...base,
            family: 'public',
            name: where.name,
            params,
            pathParams: {},
            account: undefined,
          },
        };
      }
      if (method !== 'POST') throw new SimError('EGeneral:Invalid arguments:method');
      const params = parseBody(req.headers['content-type'], rawBody);
      const account = this.#door.spot({
        path,
        headers: req.headers,
        rawBody,
        nonce: params.nonce,
        otp: params.otp,
        clientId,
        nowMs,
      });
      if (!permits(account.permissions, route.permission ?? [])) {
        throw new SimError('EGeneral:Permission denied');
      }
      ctx.limits.chargeRest(account, route.restCost ?? 1, nowMs);
      return {
        route,
        request: { ...base, family: 'private', name: where.name, params, pathParams: {}, account },
      };
    }

    const match = this.#router.pattern(where.family, path, method);
    if (match === undefined || 'methodMismatch' in match) {
      const status = match === undefined ? 404 : 405;
      throw new SimHttpError(
        status,
        where.family === 'custody'
          ? problem(
              status,
              status === 404 ? 'NotFound' : 'MethodNotAllowed',
              `${method} ${path}`,
              traceId,
            )
          : {
              result: 'error',
              error: status === 404 ? 'notFound' : 'methodNotAllowed',
              serverTime: iso(nowMs),
            },
      );
    }
    const authInput = { path, query, method, headers: req.headers, rawBody, traceId };
    const account =
      where.family === 'futures'
        ? this.#door.futures(authInput, new Date(nowMs).toISOString())
        : this.#door.custody(authInput);
    const params = Object.fromEntries(new URLSearchParams(query));
    return {
      route: match.route,
      request: {
        ...base,
        family: where.family,
        name: match.route.name,
        params,
        pathParams: match.pathParams,
        account,
      },
    };
  }

  #shape(reply: Reply, spot: boolean): { status: number; body: unknown; contentType?: string } {
    if (isRawReply(reply)) {
      return reply.contentType === undefined
        ? { status: reply.status, body: reply.body }
        : { status: reply.status, body: reply.body, contentType: reply.contentType };
    }
    if (!spot) return { status: 200, body: reply.result };
    return { status: 200, body: { error: [...(reply.warnings ?? [])], result: reply.result } };
  }

  #count(error: string): void {
    this.rejections.set(error, (this.rejections.get(error) ?? 0) + 1);
  }
}

function targetOf(path: string): Target | undefined {
  if (path.startsWith('/0/public/')) return { family: 'public', name: path.slice(10) };
  if (path.startsWith('/0/private/')) return { family: 'private', name: path.slice(11) };
  if (path.startsWith('/derivatives/api/v3/') || path.startsWith('/api/auth/v1/')) {
    return { family: 'futures', name: path };
  }
  if (path.startsWith('/v0/insto/custody/')) return { family: 'custody', name: path };
  return undefined;
}

/** Form or JSON by content type; the signature was computed over the same raw bytes. */
function parseBody(contentType: string | undefined, rawBody: Buffer): Record<string, unknown> {
  const media = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (media === 'application/json') {
    let parsed: unknown;
    try {
      parsed = rawBody.length === 0 ? {} : JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw new SimError('EGeneral:Invalid arguments:body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new SimError('EGeneral:Invalid arguments:body must be a JSON object');
    }
    return parsed as Record<string, unknown>;
  }
  if (media === 'application/x-www-form-urlencoded' || (media === '' && rawBody.length === 0)) {
    return Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
  }
  throw new SimError('EGeneral:Invalid arguments:Content-Type');
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
