/**
 * The baseline: the same feed and strategy, and every second, for each slot, CancelOrder on the
 * slot's order (if any) then AddOrder at the latest wanted price. No ratecount model, no
 * coalescing, no Redis: what a first bot on this venue looks like. Slots run side by side; within
 * a slot the add waits for the cancel's answer. A cancel the exchange refuses (other than "order
 * gone") leaves the order in place and skips the add, so refused cancels cannot pile orders up.
 */
import { encodeUserref, parseSlotKey, toWire, type PairInfo } from '../../src/core/index.js';
import { ExchangeError } from '../../src/exchange/errors/index.js';
import { SpotClient } from '../../src/exchange/index.js';
import { MATCHING_ENGINE } from '../../src/exchange/limits/index.js';
import { loadPairs } from '../../src/market/index.js';
import { chaserFor, type WantedBook } from './chase-strategy.js';
import { sampleDistance } from './distance.js';
import { readExchangeSide, toExchange, type Placed } from './exchange-side.js';
import type { RunOptions, RunResult } from './result.js';
import {
  INSTANCE,
  PAIR_NAMES,
  countSigned,
  feedFor,
  hrClock,
  readSimState,
  startBenchSim,
} from './setup.js';

export const NAIVE_INTERVAL_MS = 1_000;

interface SlotState {
  txid: string | undefined;
  generation: number;
}

export async function runNaive(opts: RunOptions): Promise<RunResult> {
  const clock = hrClock;
  const { sim, key } = await startBenchSim(opts.tier, 'naive', opts.simCpus);
  const client = new SpotClient({
    baseUrl: sim.url,
    credentials: key,
    tier: opts.tier,
    restHeadroom: 1,
    clock,
  });
  const entries = countSigned();
  try {
    const pairs = await loadPairs(client, [...PAIR_NAMES]);
    const feed = feedFor(client, pairs, opts.tier);
    const wanted: WantedBook = new Map();
    const strategies = new Map(pairs.map((p) => [p.id, chaserFor(p, opts.levels, wanted)]));
    feed.onUpdate((pairId) => {
      const s = strategies.get(pairId);
      if (s === undefined) return;
      const snapshot = feed.snapshot(pairId);
      if (snapshot.stale) return;
      const out = s.plugin.quote(snapshot, s.state, s.context);
      if (out.state !== undefined) s.state = out.state;
    });

    const slots = new Map<string, SlotState>();
    const wire: number[] = [];
    const placed: Placed[] = [];
    const refusals = new Map<string, number>();
    const refused = (err: unknown): void => {
      const reason = err instanceof ExchangeError ? err.raw : errName(err);
      refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    };
    let rounds = 0;

    const slotRound = async (pair: PairInfo, slot: string): Promise<void> => {
      const id = `${pair.id}|${slot}`;
      let st = slots.get(id);
      if (st === undefined) {
        st = { txid: undefined, generation: 0 };
        slots.set(id, st);
      }
      if (st.txid !== undefined) {
        const from = wanted.get(pair.id)?.readyAtMs ?? clock.now();
        try {
          const txid = st.txid;
          wire.push(clock.now() - from);
          await client.cancelOrder({ txid });
          st.txid = undefined;
        } catch (err) {
          refused(err);
          if (!(err instanceof ExchangeError && isGone(err.raw))) return;
          st.txid = undefined;
        }
      }
      const want = wanted.get(pair.id);
      const quote = want?.bySlot.get(slot);
      if (want === undefined || quote === undefined) return;
      st.generation += 1;
      const userref = encodeUserref(INSTANCE, parseSlotKey(slot), st.generation);
      wire.push(clock.now() - want.readyAtMs);
      placed.push({ pair: pair.id, userref, startAtMs: want.readyAtMs });
      try {
        const res = await client.addOrder({
          pair: pair.id,
          type: quote.side,
          ordertype: 'limit',
          price: toWire(quote.price),
          volume: toWire(quote.volume),
          oflags: quote.postOnly ? 'post,fciq' : 'fciq',
          userref,
        });
        st.txid = res.result.txid?.[0];
      } catch (err) {
        refused(err);
      }
    };

    const round = async (): Promise<void> => {
      rounds++;
      const work: Promise<void>[] = [];
      for (const pair of pairs) {
        for (const slot of wanted.get(pair.id)?.bySlot.keys() ?? []) {
          work.push(slotRound(pair, slot));
        }
      }
      await Promise.all(work);
    };

    const stop = new AbortController();
    const startedAt = clock.now();
    feed.start();
    const distance = sampleDistance(sim, key.apiKey, wanted);
    const looping = (async () => {
      let next = startedAt + NAIVE_INTERVAL_MS;
      for (;;) {
        try {
          await clock.sleep(Math.max(0, next - clock.now()), stop.signal);
        } catch {
          return;
        }
        next += NAIVE_INTERVAL_MS;
        await round();
      }
    })();
    await clock.sleep(opts.seconds * 1000);
    const stoppedAt = clock.now();
    stop.abort();
    const dist = await distance.stop();
    await looping;
    await feed.stop();
    const simFigures = await readSimState(sim, key.apiKey);
    const exchange = await readExchangeSide(sim, key.apiKey);

    const durationMs = stoppedAt - startedAt;
    const limits = MATCHING_ENGINE[opts.tier];
    const pointsAvailable = pairs.length * (limits.max + (limits.decayPerSec * durationMs) / 1000);
    const pointsCharged = Object.values(simFigures.chargedByPair).reduce((a, b) => a + b, 0);
    const details = [
      `${rounds} rounds of cancel-then-add every ${NAIVE_INTERVAL_MS} ms`,
      `refusals seen by the client: ${
        refusals.size === 0
          ? 'none'
          : [...refusals]
              .sort((a, b) => b[1] - a[1])
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')
      }`,
    ];
    return {
      tier: opts.tier,
      contender: 'naive',
      durationMs,
      orderEntry: new Map(entries.orderEntry),
      restCalls: new Map(entries.rest),
      sim: simFigures,
      pointsCharged,
      pointsAvailable,
      distance: dist,
      tickToWire: { samples: wire },
      toExchange: { samples: toExchange(exchange, placed) },
      intentAge: undefined,
      duplicates: exchange.duplicates,
      unknown: undefined,
      details,
    };
  } finally {
    entries.stop();
    await client.close();
    await sim.close();
  }
}

function isGone(raw: string): boolean {
  return raw === 'EOrder:Unknown order' || raw.startsWith('EOrder:Invalid order:Order is not open');
}

function errName(err: unknown): string {
  if (err instanceof Error) return (err as Error & { code?: string }).code ?? err.name;
  return String(err);
}
