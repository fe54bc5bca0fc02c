/**
 * Where makerd's tick-to-wire goes, measured from outside the executor: the runner's published
 * intents (with their generations) are remembered, and the executor's client is wrapped so each
 * order-entry call is timed (executor calls the client → request signed → written → answer) and
 * tied back to the intents it carries through the userrefs (or, for cancels, the txids) it names.
 * The probe wraps the call's own `onSigned` and `onWritten`, so the executor's measurement is left
 * untouched.
 */
import type { IntentBus } from '../../src/bus/index.js';
import { decodeUserref, slotKey, type Clock, type OrderIntent } from '../../src/core/index.js';
import type { CallOptions, SpotClient } from '../../src/exchange/index.js';
import type { Endpoint } from '../../src/exchange/index.js';
import { ORDER_ENTRY } from './setup.js';
import { fmtMs, percentiles } from './stats.js';

interface IntentTimes {
  readonly snapshotAtMs: number;
  readonly createdAtMs: number;
  readonly publishedAtMs: number;
}

interface ProbedCall {
  readonly pair: string;
  readonly endpoint: string;
  readonly startAt: number;
  readonly signedAt: number;
  readonly writtenAt: number;
  readonly endAt: number;
  readonly intents: readonly IntentTimes[];
}

interface LooseOrderRequest {
  readonly pair?: string;
  readonly userref?: number;
  readonly txid?: string;
  readonly orders?: readonly (string | { readonly userref?: number })[];
}

interface LooseOrderResult {
  readonly txid?: string | readonly string[];
  readonly orders?: readonly { readonly txid?: string }[];
}

export class WireProbe {
  readonly #clock: Clock;
  readonly #calls: ProbedCall[] = [];
  readonly #byGeneration = new Map<string, IntentTimes>();
  readonly #latest = new Map<string, IntentTimes[]>();
  readonly #slotOfTxid = new Map<string, { pair: string; slot: string }>();
  /** The drain (its take from the register) each taken intent went in, by pair|slot|generation. */
  readonly #takenIn = new Map<string, number>();
  #drains = 0;
  /** The executor's other calls (reconciliation, unknown outcomes): durations by endpoint. */
  readonly #reads = new Map<string, number[]>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  published(intents: readonly OrderIntent[], atMs: number): void {
    for (const i of intents) {
      const t = {
        snapshotAtMs: i.snapshotAtMs,
        createdAtMs: i.createdAtMs,
        publishedAtMs: atMs,
      };
      this.#byGeneration.set(generationKey(i.pair, i.slot, i.generation), t);
      const k = `${i.pair}|${i.slot}`;
      this.#latest.set(k, [...(this.#latest.get(k) ?? []).slice(-7), t]);
    }
  }

  /**
   * Notes which drain took which intents from the register on `bus`: every drain that planned
   * takes its intents once, once its calls' requests are written (the take is issued when the
   * drain's hold on the connection ends), so calls are tied to their drain by the intents they
   * carry. In this process the executor is woken by the publish itself or by its own budget timer:
   * no queue job is involved.
   */
  attachBus(bus: IntentBus): void {
    const takeSlots = bus.takeSlots.bind(bus);
    bus.takeSlots = (pair, picks) => {
      const drain = ++this.#drains;
      // Keyed as the intents are (published() may come after: the take is sent before the
      // publish is answered).
      for (const p of picks) this.#takenIn.set(generationKey(pair, p.slot, p.generation), drain);
      return takeSlots(pair, picks);
    };
  }

  /** Times every order-entry call `client` makes from now on. */
  attach(client: SpotClient): void {
    const call = client.call.bind(client);
    client.call = <Req, Out>(ep: Endpoint<Req, Out>, req: Req, opts?: CallOptions) => {
      if (!ORDER_ENTRY.has(ep.name)) {
        const t0 = this.#clock.now();
        return call(ep, req, opts).finally(() =>
          push(this.#reads, ep.name, this.#clock.now() - t0),
        );
      }
      const stamp = {
        at: undefined as number | undefined,
        written: undefined as number | undefined,
      };
      const startAt = this.#clock.now();
      const r = req as LooseOrderRequest;
      // Which intents the call carries is worked out once it is over, off its path.
      const pair = r.pair ?? this.#slotOfTxid.get(r.txid ?? firstTxid(r) ?? '')?.pair ?? '?';
      const onSigned = (): void => {
        stamp.at ??= this.#clock.now();
        opts?.onSigned?.();
      };
      const onWritten = (): void => {
        stamp.written ??= this.#clock.now();
        opts?.onWritten?.();
      };
      return call(ep, req, { ...opts, onSigned, onWritten })
        .then((res) => {
          this.#learnTxids(ep.name, r, res.result as LooseOrderResult);
          return res;
        })
        .finally(() => {
          if (stamp.at === undefined || stamp.written === undefined) return;
          const endAt = this.#clock.now();
          this.#calls.push({
            pair,
            endpoint: ep.name,
            startAt,
            signedAt: stamp.at,
            writtenAt: stamp.written,
            endAt,
            intents: this.#intentsOf(ep.name, r, startAt),
          });
        });
    };
  }

  #intentsOf(endpoint: string, r: LooseOrderRequest, atMs: number): IntentTimes[] {
    const byUserref = (pair: string | undefined, userref: number | undefined): IntentTimes[] => {
      const d = decodeUserref(userref);
      if (d === undefined || pair === undefined) return [];
      const t = this.#byGeneration.get(generationKey(pair, slotKey(d.slot), d.generation));
      return t === undefined ? [] : [t];
    };
    const byTxid = (txid: string): IntentTimes[] => {
      const s = this.#slotOfTxid.get(txid);
      if (s === undefined) return [];
      const before = (this.#latest.get(`${s.pair}|${s.slot}`) ?? []).filter(
        (t) => t.publishedAtMs <= atMs,
      );
      const t = before[before.length - 1];
      return t === undefined ? [] : [t];
    };
    switch (endpoint) {
      case 'AddOrder':
      case 'EditOrder':
        return byUserref(r.pair, r.userref);
      case 'AddOrderBatch':
        return (r.orders ?? []).flatMap((o) =>
          typeof o === 'string' ? [] : byUserref(r.pair, o.userref),
        );
      case 'CancelOrder':
        return r.txid === undefined ? [] : byTxid(r.txid);
      case 'CancelOrderBatch':
        return (r.orders ?? []).flatMap((o) => (typeof o === 'string' ? byTxid(o) : []));
      default:
        return [];
    }
  }

  #learnTxids(endpoint: string, r: LooseOrderRequest, result: LooseOrderResult): void {
    const learn = (txid: string | undefined, userref: number | undefined): void => {
      const d = decodeUserref(userref);
      if (txid !== undefined && d !== undefined && r.pair !== undefined) {
        this.#slotOfTxid.set(txid, { pair: r.pair, slot: slotKey(d.slot) });
      }
    };
    const txid = typeof result.txid === 'string' ? result.txid : result.txid?.[0];
    if (endpoint === 'AddOrder' || endpoint === 'EditOrder') learn(txid, r.userref);
    if (endpoint === 'AddOrderBatch') {
      (result.orders ?? []).forEach((o, i) => {
        const sent = r.orders?.[i];
        learn(o.txid, typeof sent === 'string' ? undefined : sent?.userref);
      });
    }
  }

  /** Lines for the report: the path of an intent, stage by stage. */
  summary(): string[] {
    const calls = this.#calls;
    if (calls.length === 0) return ['wire probe: no order-entry call seen'];
    const perIntent = calls.flatMap((c) => c.intents.map((i) => ({ c, i })));
    const line = (what: string, xs: readonly number[]): string => {
      const p = percentiles(xs);
      return `${what}: p50 ${fmtMs(p.p50)} ms, p99 ${fmtMs(p.p99)} ms (n=${p.count})`;
    };
    // A call that starts within 1 ms of the answer to the previous call on its pair was queued
    // behind it (max_calls_in_flight reached, or a replacement add waiting for its cancel).
    const sorted = [...calls].sort((a, b) => a.startAt - b.startAt);
    const lastEnd = new Map<string, number>();
    let behind = 0;
    for (const c of sorted) {
      const prev = lastEnd.get(c.pair);
      if (prev !== undefined && c.startAt >= prev && c.startAt - prev < 1) behind++;
      lastEnd.set(c.pair, Math.max(prev ?? 0, c.endAt));
    }
    // The drains the calls went out in.
    const keyOf = new Map<IntentTimes, string>();
    for (const [k, t] of this.#byGeneration) keyOf.set(t, k);
    const drainsWithCalls = new Set(
      calls.flatMap((c) => c.intents.flatMap((i) => this.#takenIn.get(keyOf.get(i) ?? '') ?? [])),
    );
    return [
      `wire probe (client-side, ${calls.length} calls, ${perIntent.length} tied to intents):`,
      `  ${line(
        'snapshot → request written, budget waits included',
        perIntent.map(({ c, i }) => c.writtenAt - i.snapshotAtMs),
      )}`,
      `  ${line(
        'snapshot → intent created (runner tick)',
        perIntent.map(({ i }) => i.createdAtMs - i.snapshotAtMs),
      )}`,
      `  ${line(
        'intent created → bus.publish answered (the executor is told before the answer)',
        perIntent.map(({ i }) => i.publishedAtMs - i.createdAtMs),
      )}`,
      `  ${line(
        'intent created → executor calls the client (publish, budget, drain)',
        perIntent.map(({ c, i }) => c.startAt - i.createdAtMs),
      )}`,
      `  ${line(
        'client called → request signed (nonce, gate: on the fast path nothing from Redis; signing)',
        calls.map((c) => c.signedAt - c.startAt),
      )}`,
      `  ${line(
        'request signed → written (transport: DirectTransport writes at once; undici, with --order-entry shared, in the next check phase)',
        calls.map((c) => c.writtenAt - c.signedAt),
      )}`,
      `  ${line(
        'request written → answer (HTTP round trip to the simulator)',
        calls.map((c) => c.endAt - c.writtenAt),
      )}`,
      `  the first calls (the start-up burst, on code still cold), stage by stage in ms: snapshot → intent created / → client called / → signed / → written:`,
      ...sorted
        .slice(0, 12)
        .map((c) =>
          [
            `    ${c.endpoint} ${c.pair}:`,
            ...c.intents
              .slice(0, 1)
              .map(
                (i) =>
                  `${fmtMs(i.createdAtMs - i.snapshotAtMs)} / ${fmtMs(c.startAt - i.createdAtMs)} /`,
              ),
            `${fmtMs(c.signedAt - c.startAt)} / ${fmtMs(c.writtenAt - c.signedAt)}`,
          ].join(' '),
        ),
      `  ${calls.length} calls in ${drainsWithCalls.size} drains (of ${this.#drains} drains in all; the others found nothing to send)`,
      `  ${behind} of ${calls.length} calls started < 1 ms after the answer to the previous call on the pair (sent one after another)`,
      `  executor's other calls (REST budget, waits for the client's REST limiter included): ${
        this.#reads.size === 0
          ? 'none'
          : [...this.#reads]
              .map(([k, xs]) => `${k} ${xs.length} (max ${fmtMs(Math.max(...xs))} ms)`)
              .join(', ')
      }`,
    ];
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const xs = m.get(k);
  if (xs === undefined) m.set(k, [v]);
  else xs.push(v);
}

/** An intent's key: a userref carries its generation modulo 2^16. */
function generationKey(pair: string, slot: string, generation: number): string {
  return `${pair}|${slot}|${generation % 0x10000}`;
}

function firstTxid(r: LooseOrderRequest): string | undefined {
  const o = r.orders?.[0];
  return typeof o === 'string' ? o : undefined;
}
