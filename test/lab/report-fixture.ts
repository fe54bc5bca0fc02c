import { dec, type Decimal } from '../../src/core/index.js';
import {
  inventoryStats,
  maxDrawdown,
  pnlPerVolumeBps,
  quoteTotals,
  type BacktestReport,
  type FillPoint,
  type PairReport,
} from '../../src/lab/report/index.js';

/**
 * A made-up but consistent backtest: a seeded random walk per pair at 1 s points, quotes around
 * it (none for two minutes), fills at our quotes, and every figure derived from those: the PnL
 * split (total = spread + inventory − fees, exactly), markouts from the mid series, ratecount.
 */
export interface FixturePair {
  readonly pair: string;
  readonly base: string;
  readonly quote: string;
  readonly mid: number;
  readonly tick: number;
  readonly lot: string;
  readonly seed: number;
}

export const FIXTURE_PAIRS: readonly FixturePair[] = [
  { pair: 'XBTUSD', base: 'XBT', quote: 'USD', mid: 91_250, tick: 0.1, lot: '0.01', seed: 7 },
  { pair: 'ETHUSD', base: 'ETH', quote: 'USD', mid: 3_120, tick: 0.01, lot: '0.2', seed: 11 },
];

export const START_MS = Date.UTC(2026, 10, 27, 4, 0, 0);
const HORIZONS_MS = [1000, 10_000, 60_000];
const FEE_RATE = dec('0.0016');
const HALF_SPREAD = 0.0004;
const RATECOUNT_MAX = 125;

export function fixtureReport(seconds = 3600, pairs = FIXTURE_PAIRS): BacktestReport {
  const reports = pairs.map((p) => fixturePair(p, seconds));
  return {
    makerd_report: 1,
    strategy: 'spread-only v1',
    run: {
      dataDir: '/var/lib/makerd/recordings/2026-11-27',
      fromMs: START_MS,
      toMs: START_MS + seconds * 1000,
      simulatedMs: seconds * 1000,
      wallMs: 4500,
      strategyErrors: 3,
      problems: [
        {
          kind: 'gap',
          pair: 'ETHUSD',
          fromMs: START_MS + 600_000,
          toMs: START_MS + 612_000,
          text: 'no Depth answer for 12 s in ETHUSD/2026-11-27T04.1.jsonl.gz </script><script>window.__injected = 1</script>',
        },
      ],
    },
    pairs: reports,
    totals: quoteTotals(reports),
    halts: [
      {
        startMs: START_MS + 1_200_000,
        endMs: START_MS + 1_320_000,
        reason: 'risk: XBTUSD: buy order worth 9125 beyond max_order_notional 5000',
        by: 'runner',
        cancelled: 4,
      },
    ],
    settings: {
      config: '/etc/makerd/paper.yaml',
      latencyMs: 20,
      latencyFrom: "the recording's median round trip",
      queueRule: 'log',
      fees: pairs.map((p) => ({
        pair: p.pair,
        makerPct: '0.25',
        takerPct: '0.4',
        volumeUsd: '0',
      })),
    },
    fidelity: {
      live: 'paper session on the simulator, 2026-11-27 04:00 UTC',
      tolerancePct: 10,
      rows: [
        { pair: 'XBTUSD', live: fig(101, '9120.5', '3.25'), replay: fig(96, '8790.2', '3.01') },
        { pair: 'ETHUSD', live: fig(88, '54120.4', '-1.5'), replay: fig(93, '57003.1', '-1.82') },
      ],
      note: 'Replay fills an order only once recorded trades consume the volume ahead of it; live, the simulator also fills against its own background takers between polls.',
    },
  };
}

const fig = (fills: number, volume: string, realizedPnl: string) => ({
  fills,
  volume,
  realizedPnl,
});

function fixturePair(p: FixturePair, seconds: number): PairReport {
  const random = mulberry32(p.seed);
  const digits = Math.round(-Math.log10(p.tick));
  const round = (v: number): number => Number(v.toFixed(digits));
  const lot = dec(p.lot);
  const tMs: number[] = [];
  const mids: number[] = [];
  const bid: (number | null)[] = [];
  const ask: (number | null)[] = [];
  const targetBid: (number | null)[] = [];
  const targetAsk: (number | null)[] = [];
  const position: number[] = [];
  const pnlSpread: number[] = [];
  const pnlInventory: number[] = [];
  const pnlFees: number[] = [];
  const pnlTotal: number[] = [];
  const ratecount: number[] = [];
  const fills: FillPoint[] = [];
  const fillAt: number[] = [];

  let mid = p.mid;
  let pos = dec(0);
  let cash = dec(0);
  let spread = dec(0);
  let fees = dec(0);
  let volumeQuote = dec(0);
  let rc = 0;
  let quoted = 0;
  let distance = 0;
  let lastBid: number | null = null;
  for (let i = 0; i < seconds; i++) {
    mid = round(mid * (1 + (random() - 0.5) * 0.0006));
    // Not quoting for two minutes (the strategy pulled its quotes).
    const quoting = i < 1200 || i >= 1320;
    const tb = mid * (1 - HALF_SPREAD);
    const ta = mid * (1 + HALF_SPREAD);
    const b = quoting ? Math.floor(tb / p.tick) * p.tick : null;
    const a = quoting ? Math.ceil(ta / p.tick) * p.tick : null;
    if (b !== null && a !== null) {
      quoted++;
      distance += ((tb - b) / tb + (a - ta) / ta) * 5000;
    }
    // A requote (the bid moved by more than 1.5 bp) costs 2 ratecount, which decays by 1.2 a
    // second; a burst of requotes at minute 45 nears the maximum.
    if (b !== null && (lastBid === null || Math.abs(b - lastBid) / b > 0.00015)) {
      rc += 2;
      lastBid = b;
    }
    if (i >= 2700 && i < 2720) rc += 6;
    rc = Math.min(RATECOUNT_MAX, Math.max(0, rc - 1.2));

    if (b !== null && a !== null && i % 37 === 7) {
      const buy = random() < (pos.gt(lot.times(4)) ? 0.2 : pos.lt(lot.times(-4)) ? 0.8 : 0.5);
      const price = dec(round(buy ? b : a).toFixed(digits));
      const fee = price.times(lot).times(FEE_RATE).toDecimalPlaces(8);
      const signed = buy ? lot : lot.neg();
      pos = pos.plus(signed);
      cash = cash.minus(price.times(signed));
      spread = spread.plus(dec(mid.toFixed(digits)).minus(price).times(signed));
      fees = fees.plus(fee);
      volumeQuote = volumeQuote.plus(price.times(lot));
      fills.push({
        tMs: START_MS + i * 1000,
        side: buy ? 'buy' : 'sell',
        price: price.toFixed(),
        volume: lot.toFixed(),
        fee: fee.toFixed(),
      });
      fillAt.push(i);
    }
    const total: Decimal = cash.plus(pos.times(dec(mid.toFixed(digits)))).minus(fees);
    tMs.push(START_MS + i * 1000);
    mids.push(mid);
    bid.push(b === null ? null : round(b));
    ask.push(a === null ? null : round(a));
    targetBid.push(quoting ? tb : null);
    targetAsk.push(quoting ? ta : null);
    position.push(pos.toNumber());
    pnlSpread.push(spread.toNumber());
    pnlFees.push(fees.toNumber());
    pnlTotal.push(total.toNumber());
    pnlInventory.push(total.minus(spread).plus(fees).toNumber());
    ratecount.push(rc);
  }
  const total = cash.plus(pos.times(dec((mids.at(-1) as number).toFixed(digits)))).minus(fees);
  const buys = fills.filter((f) => f.side === 'buy').length;
  return {
    pair: p.pair,
    base: p.base,
    quote: p.quote,
    summary: {
      fills: fills.length,
      buys,
      sells: fills.length - buys,
      volumeBase: lot.times(fills.length).toFixed(),
      volumeQuote: volumeQuote.toFixed(),
      pnl: {
        spread: spread.toFixed(),
        inventory: total.minus(spread).plus(fees).toFixed(),
        fees: fees.toFixed(),
        total: total.toFixed(),
      },
      fillRatePerHour: fills.length / (quoted / 3600),
      timeAtQuote: quoted / seconds,
      timeAtQuoteAny: quoted / seconds,
      quoteDistanceBps: distance / quoted,
      ratecount: {
        mean: ratecount.reduce((s, v) => s + v, 0) / ratecount.length,
        max: Math.max(...ratecount),
      },
      pnlPerVolumeBps: pnlPerVolumeBps(total.toFixed(), volumeQuote.toFixed()),
      maxDrawdown: maxDrawdown(pnlTotal),
      inventory: inventoryStats(tMs, position),
      orderEntry: { orders: fills.length * 3, edits: fills.length * 5, cancels: fills.length * 2 },
      strategy: { ticks: seconds, errors: p.pair === 'XBTUSD' ? 3 : 0 },
    },
    series: {
      tMs,
      mid: mids,
      bid,
      ask,
      targetBid,
      targetAsk,
      position,
      pnlSpread,
      pnlInventory,
      pnlFees,
      pnlTotal,
      ratecount,
      ratecountMax: RATECOUNT_MAX,
    },
    fills,
    markouts: markouts(fills, fillAt, mids),
  };
}

/** Mean markout per horizon in bps (equal lots, so the plain mean is the volume-weighted one). */
function markouts(fills: readonly FillPoint[], at: readonly number[], mids: readonly number[]) {
  const curve = (pick: (f: FillPoint) => boolean): (number | null)[] =>
    HORIZONS_MS.map((h) => {
      const values = fills.flatMap((f, k) => {
        const later = mids[(at[k] as number) + h / 1000];
        if (!pick(f) || later === undefined) return [];
        const price = Number(f.price);
        return [((f.side === 'buy' ? 1 : -1) * (later - price) * 10_000) / price];
      });
      return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
    });
  return {
    horizonsMs: HORIZONS_MS,
    buy: curve((f) => f.side === 'buy'),
    sell: curve((f) => f.side === 'sell'),
    all: curve(() => true),
  };
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
