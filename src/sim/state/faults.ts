import { Type, type Static } from '@sinclair/typebox';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { parseWithSchema } from '../../core/index.js';

const Rate = Type.Number({ minimum: 0, maximum: 1 });

const FaultRule = Type.Object({
  /** Endpoint names (`AddOrder`) or path prefixes (`/0/private/`); all paths when absent. */
  paths: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /** Added before the request is handled. */
  latency_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 120_000 })),
  /** Answer HTTP 502 without handling the request. */
  http_5xx_rate: Type.Optional(Rate),
  /** Handle the request (orders are placed), then destroy the connection without answering. */
  drop_response_rate: Type.Optional(Rate),
  /** Answer `EService:Unavailable` without handling. */
  unavailable_rate: Type.Optional(Rate),
  /** Answer `EService:Throttled: <now + throttle_seconds>` without handling. */
  throttled_rate: Type.Optional(Rate),
  throttle_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
});
export type FaultRule = Static<typeof FaultRule>;

/** Body of POST /_sim/faults: one rule, or `{rules: [...]}`; `{}` clears every fault. */
const FaultsBody = Type.Union([
  Type.Object({ rules: Type.Array(FaultRule), seed: Type.Optional(Type.Integer()) }),
  Type.Intersect([FaultRule, Type.Object({ seed: Type.Optional(Type.Integer()) })]),
]);

/** What the server does to one request. */
export interface FaultDecision {
  readonly latencyMs: number;
  readonly before: 'http5xx' | 'unavailable' | 'throttled' | undefined;
  readonly throttleSeconds: number;
  readonly dropResponse: boolean;
}

const NONE: FaultDecision = {
  latencyMs: 0,
  before: undefined,
  throttleSeconds: 1,
  dropResponse: false,
};

/** Injected faults, drawn from a seeded generator so a failing run can be replayed. */
export class Faults {
  #rules: FaultRule[] = [];
  #rng = xoroshiro128plus(1);
  readonly counts = { http5xx: 0, unavailable: 0, throttled: 0, dropped: 0, delayed: 0 };

  get rules(): readonly FaultRule[] {
    return this.#rules;
  }

  set(body: unknown): void {
    const parsed = parseWithSchema(FaultsBody, body, 'faults');
    const rules = 'rules' in parsed ? parsed.rules : [parsed];
    this.#rules = rules.filter((r) => Object.keys(r).some((k) => k !== 'paths' && k !== 'seed'));
    if (parsed.seed !== undefined) this.#rng = xoroshiro128plus(parsed.seed);
  }

  clear(): void {
    this.#rules = [];
  }

  decide(name: string, path: string): FaultDecision {
    if (this.#rules.length === 0) return NONE;
    let latencyMs = 0;
    let before: FaultDecision['before'];
    let throttleSeconds = 1;
    let dropResponse = false;
    for (const rule of this.#rules) {
      if (rule.paths !== undefined && !rule.paths.some((p) => p === name || path.startsWith(p))) {
        continue;
      }
      latencyMs += rule.latency_ms ?? 0;
      if (before === undefined && this.#hit(rule.http_5xx_rate)) before = 'http5xx';
      if (before === undefined && this.#hit(rule.unavailable_rate)) before = 'unavailable';
      if (before === undefined && this.#hit(rule.throttled_rate)) {
        before = 'throttled';
        throttleSeconds = rule.throttle_seconds ?? 1;
      }
      if (this.#hit(rule.drop_response_rate)) dropResponse = true;
    }
    if (latencyMs > 0) this.counts.delayed += 1;
    if (before !== undefined) this.counts[before] += 1;
    else if (dropResponse) this.counts.dropped += 1;
    return {
      latencyMs,
      before,
      throttleSeconds,
      dropResponse: before === undefined && dropResponse,
    };
  }

  #hit(rate: number | undefined): boolean {
    return rate !== undefined && rate > 0 && uniformFloat64(this.#rng) < rate;
  }
}
