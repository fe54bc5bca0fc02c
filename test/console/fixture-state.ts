/**
 * A made-up deployment for the console page's tests: two pairs (XBTUSD, ETHUSD) with an hour of
 * chart points and fills leading up to a fixed book, figures chosen to be checked on the page
 * (PnL total = spread + inventory − fees exactly), and the changes the page's actions make.
 */
import type {
  ChartPoint,
  ConsoleAuditEntry,
  ConsoleEvent,
  ConsoleFill,
  ConsoleHistory,
  ConsolePair,
  ConsoleState,
} from '../../src/console/state.js';

export const START_MS = Date.UTC(2026, 10, 27, 14, 0, 0);
/** The runner's start, which the PnL counts from. */
export const PNL_SINCE_MS = START_MS - 2 * 3_600_000 - 5 * 60_000;
export const INSTANCE = 'paper-eu-1';

interface PairSetup {
  readonly pair: ConsolePair;
  readonly mid: number;
  readonly halfSpread: number;
  readonly tick: number;
  readonly step: number;
  readonly seed: number;
}

const XBTUSD: PairSetup = {
  mid: 91_250.25,
  halfSpread: 1.25,
  tick: 0.1,
  step: 2.5,
  seed: 7,
  pair: {
    pair: 'XBTUSD',
    base: 'XBT',
    quote: 'USD',
    executor: true,
    pulled: false,
    mode: 'online',
    book: { bid: '91249.0', ask: '91251.5', mid: '91250.25' },
    orders: [
      {
        side: 'sell',
        price: '91251.5',
        volume: '0.01',
        level: 0,
        queueAhead: '0.254',
        queueSource: 'level3',
      },
      { side: 'sell', price: '91253.0', volume: '0.02', level: 2 },
      {
        side: 'buy',
        price: '91249.0',
        volume: '0.01',
        level: 0,
        queueAhead: '0.1',
        queueSource: 'level3',
      },
      { side: 'buy', price: '91247.5', volume: '0.02', level: 1 },
    ],
    inventory: { base: '0.0625', quote: '12874.5531', maxBase: '0.1' },
    pnl: {
      total: '12.3456789',
      spread: '15.20',
      inventory: '-1.4321211',
      fees: '1.4222',
      fills: 42,
      markout10sBps: 1.84,
    },
    quoting: {
      makerFeeBps: '25',
      takerFeeBps: '40',
      feeSource: 'trade-volume',
      floor: {
        enabled: true,
        halfSpreadBps: '27.3',
        makerFeeBps: '25',
        adverseBps: '0.3',
        minEdgeBps: '2',
      },
      adverseFills: 12,
      model: { A: 1.23456, k: 0.0456, fit: 'ok' },
    },
    ratecount: { level: 37.5, max: 125, planned: 123 },
    dataAges: [
      { source: 'depth', ageMs: 420, staleAfterMs: 4500 },
      { source: 'level3', ageMs: 1300, staleAfterMs: 6000 },
      { source: 'trades', ageMs: 2100, staleAfterMs: 30_000 },
      // The 120 s balance poll, 95 s after its last answer: normal running.
      { source: 'balance', ageMs: 95_000, staleAfterMs: 360_000 },
    ],
    fills: [],
  },
};

const ETHUSD: PairSetup = {
  mid: 3120.075,
  halfSpread: 0.235,
  tick: 0.01,
  step: 0.12,
  seed: 11,
  pair: {
    pair: 'ETHUSD',
    base: 'ETH',
    quote: 'USD',
    executor: true,
    pulled: false,
    mode: 'online',
    book: { bid: '3119.84', ask: '3120.31', mid: '3120.075' },
    orders: [
      {
        side: 'sell',
        price: '3120.31',
        volume: '0.2',
        level: 0,
        queueAhead: '3.1',
        queueSource: 'depth',
        queueRule: 'linear',
      },
      {
        side: 'buy',
        price: '3119.84',
        volume: '0.2',
        level: 0,
        queueAhead: '0.6',
        queueSource: 'depth',
        queueRule: 'linear',
      },
      { side: 'buy', price: '3119.50', volume: '0.4', level: 3 },
    ],
    // Short: sold more than bought.
    inventory: { base: '-1.2', quote: '4210.07', maxBase: '5' },
    pnl: {
      total: '-3.05',
      spread: '2.10',
      inventory: '-4.5',
      fees: '0.65',
      fills: 17,
      markout10sBps: -0.62,
    },
    // 91 %: where the executor is meant to run (it plans up to 123).
    ratecount: { level: 114, max: 125, planned: 123 },
    dataAges: [
      { source: 'depth', ageMs: 610, staleAfterMs: 4500 },
      { source: 'trades', ageMs: 21_000, staleAfterMs: 30_000 },
      { source: 'openOrders', ageMs: 95_000, staleAfterMs: 90_000 },
    ],
    fills: [],
  },
};

/** Seeded, so every run draws the same chart. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface PairHour {
  readonly points: ChartPoint[];
  readonly fills: ConsoleFill[];
}

/** The hour before START_MS at 1 s points: a walk ending at the book's mid, quotes after 2 min. */
function hour(setup: PairSetup): PairHour {
  const rand = random(setup.seed);
  const round = (v: number): number => Math.round(v / setup.tick) * setup.tick;
  const mids: number[] = [setup.mid];
  for (let i = 1; i <= 3600; i++)
    mids.unshift((mids[0] ?? setup.mid) - (rand() - 0.5) * setup.step);
  const points = mids.map((mid, i): ChartPoint => {
    const tMs = START_MS - (3600 - i) * 1000;
    if (i < 120) return { tMs, mid };
    return { tMs, mid, bid: round(mid - setup.halfSpread), ask: round(mid + setup.halfSpread) };
  });
  const fills: ConsoleFill[] = [];
  const decimals = String(setup.tick).split('.')[1]?.length ?? 0;
  for (let i = 300; i < points.length; i += 150 + Math.floor(rand() * 120)) {
    const point = points[i];
    if (point === undefined) continue;
    const side = rand() < 0.5 ? 'buy' : 'sell';
    const price = side === 'buy' ? point.bid : point.ask;
    if (price === undefined) continue;
    fills.push({
      id: `${setup.pair.pair}-${i}`,
      tMs: point.tMs,
      side,
      price: price.toFixed(decimals),
      volume: setup.pair.orders[0]?.volume ?? '0.01',
    });
  }
  return { points, fills };
}

/** The fixture deployment as it changes: each tick() one second on, and the operator's actions. */
export class FixtureDeployment {
  #tick = 0;
  #halt: ConsoleState['halt'] = { halted: false };
  readonly #pulled = new Set<string>();
  readonly #events: ConsoleEvent[] = [
    // The same refusal ten times a second apart, as the executor logs it.
    ...Array.from({ length: 10 }, (_, i): ConsoleEvent => ({
      tMs: START_MS - 20_000 - i * 1000,
      level: 'warn',
      source: 'executor',
      message: 'order entry refused',
      pair: 'ETHUSD',
      action: 'AddOrder',
      reason: 'EOrder:Insufficient funds',
    })),
    {
      tMs: START_MS - 65_000,
      level: 'warn',
      source: 'runner',
      message: 'XBTUSD: Level3 answer took 2.1 s',
    },
    {
      tMs: START_MS - 600_000,
      level: 'error',
      source: 'executor',
      message: 'AddOrder ETHUSD refused: EOrder:Insufficient funds <b>(retried)</b>',
    },
  ];
  readonly #audit: ConsoleAuditEntry[] = [
    {
      id: `${START_MS - 1_800_000}-0`,
      tMs: START_MS - 1_800_000,
      actor: 'bob@desk',
      door: 'cli',
      action: 'resume',
      changed: true,
      outcome: 'resumed; was halted by supervisor for risk: <b>max loss</b>',
    },
  ];
  readonly #setups = [XBTUSD, ETHUSD];
  readonly #hours = new Map(this.#setups.map((s) => [s.pair.pair, hour(s)]));

  get atMs(): number {
    return START_MS + this.#tick * 1000;
  }

  tick(): void {
    this.#tick += 1;
  }

  history(): ConsoleHistory {
    return {
      pairs: this.#setups.map((s) => {
        const { points, fills } = this.#hours.get(s.pair.pair) ?? { points: [], fills: [] };
        return { pair: s.pair.pair, points, fills };
      }),
    };
  }

  state(): ConsoleState {
    const atMs = this.atMs;
    const pairs = this.#setups.map((s): ConsolePair => {
      const pulled = this.#pulled.has(s.pair.pair);
      const fills = this.#hours.get(s.pair.pair)?.fills ?? [];
      const quoting = !pulled && !this.#halt.halted;
      return {
        ...s.pair,
        pulled,
        orders: quoting ? s.pair.orders : [],
        point: {
          tMs: atMs,
          mid: s.mid,
          ...(quoting ? { bid: s.mid - s.halfSpread, ask: s.mid + s.halfSpread } : {}),
        },
        fills: fills.slice(-20).reverse(),
      };
    });
    return {
      atMs,
      instance: INSTANCE,
      halt: this.#halt,
      roles: {
        runner: { alive: true, beatAgeMs: 400 },
        executor: { alive: true, beatAgeMs: 700 },
        supervisor: { alive: true, beatAgeMs: 900 },
      },
      supervisor: {
        exchange: 'online',
        posture: 'normal',
        // A heartbeat every 15 s pushes the trigger to 60 s after it.
        deadManTriggerAtMs: atMs - (this.#tick % 15) * 1000 + 60_000,
        risk: 'ok',
        rest: { level: 4.3, max: 15 },
        nextMaintenance: {
          title: 'Scheduled maintenance',
          startMs: START_MS + 5 * 3_600_000,
          endMs: START_MS + 6 * 3_600_000,
        },
      },
      pairs,
      pnlSinceMs: PNL_SINCE_MS,
      events: this.#events.slice(0, 50),
      audit: this.#audit.slice(0, 20),
    };
  }

  halt(reason: string, operator: string): void {
    const by = `operator:console (${operator})`;
    this.#halt = { halted: true, reason, by, sinceMs: this.atMs };
    this.#record(operator, 'halt', { reason });
  }

  resume(operator: string): void {
    this.#halt = { halted: false };
    this.#record(operator, 'resume', {});
  }

  pull(pair: string, pulled: boolean, operator: string): void {
    if (pulled) this.#pulled.add(pair);
    else this.#pulled.delete(pair);
    this.#record(operator, pulled ? 'pull' : 'restore', { pair });
  }

  #record(actor: string, action: string, about: { pair?: string; reason?: string }): void {
    const id = `${this.atMs}-${this.#audit.length}`;
    const entry = { id, tMs: this.atMs, actor, door: 'console', action, ...about };
    this.#audit.unshift({ ...entry, changed: true, outcome: `${action} done` });
  }
}
