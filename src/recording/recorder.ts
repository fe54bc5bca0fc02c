import { errorMessage, silentLog, type Clock, type Log, type PairInfo } from '../core/index.js';
import { HttpTransport, type SpotClient, type Transport } from '../exchange/index.js';
import { RESTING_STATES, type TrackedOrder } from '../orders/index.js';
import type { BudgetPlan, TradesGap } from '../market/index.js';
import {
  DEFAULT_MIN_FREE_BYTES,
  prepareDir,
  type RecordingStoppedError,
  type StatFs,
} from './disk-space.js';
import { intervalsOf } from './intervals.js';
import { RecordingTransport } from './recording-transport.js';
import { RecordingWriter, type RecordingStats } from './recording-writer.js';
import { tradesGapRow } from './trades-gap.js';

export interface RecorderOptions {
  readonly dir: string;
  readonly clock: Clock;
  /** The transport recorded; default a new HttpTransport (closed with the recorder). */
  readonly inner?: Transport;
  readonly log?: Log;
  readonly minFreeBytes?: number;
  readonly statfs?: StatFs;
}

const NO_STATS: RecordingStats = { files: 0, rows: 0, bytes: 0, gaps: 0 };

/**
 * A recording in the making: the transport to build the client on (answers before start are
 * kept), then, once the poll plan is known, the writer. Each new hour it asks for the pairs'
 * rules again, so every hour of a recording holds them.
 */
export class Recorder {
  readonly dir: string;
  readonly transport: RecordingTransport;
  readonly #o: RecorderOptions;
  readonly #inner: Transport;
  readonly #log: Log;
  readonly #stopListeners = new Set<(err: RecordingStoppedError) => void>();
  #writer: RecordingWriter | undefined;
  #closed: Promise<void> | undefined;

  constructor(options: RecorderOptions) {
    this.#o = options;
    this.dir = options.dir;
    this.#inner = options.inner ?? new HttpTransport();
    this.#log = options.log ?? silentLog;
    this.transport = new RecordingTransport(this.#inner, options.clock);
  }

  /** Creates the folder and checks its disk now, before anything is polled. */
  checkDisk(): Promise<void> {
    return prepareDir(this.dir, this.#o.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES, this.#o.statfs);
  }

  /** Opens the writer (a RecordingStoppedError if the disk is nearly full) and starts writing. */
  async start(input: {
    readonly plan: BudgetPlan;
    readonly client: SpotClient;
    readonly pairs: readonly PairInfo[];
  }): Promise<void> {
    const { plan, client, pairs } = input;
    const rulesOf = pairs.map((p) => p.altname).join(',');
    try {
      this.#writer = await RecordingWriter.open({
        dir: this.dir,
        clock: this.#o.clock,
        intervalsMs: intervalsOf(plan),
        tier: plan.tier,
        ...(this.#o.minFreeBytes === undefined ? {} : { minFreeBytes: this.#o.minFreeBytes }),
        ...(this.#o.statfs === undefined ? {} : { statfs: this.#o.statfs }),
        onStop: (err) => {
          this.transport.detach();
          for (const listener of [...this.#stopListeners]) listener(err);
        },
        onNewHour: () => {
          client.assetPairs({ pair: rulesOf }).catch((err: unknown) => {
            this.#log.warn({ err: errorMessage(err) }, 'record: asking for the pair rules failed');
          });
        },
      });
    } catch (err) {
      this.transport.detach();
      throw err;
    }
    this.transport.attach(this.#writer.write);
  }

  /**
   * The trading bot's own resting orders on one pair, as its tracker knows them (an `OwnOrders`
   * row in OpenOrders' shape): what replay takes out of the recorded book. Nothing before start.
   */
  ownOrders(pair: PairInfo, live: readonly TrackedOrder[]): void {
    const writer = this.#writer;
    if (writer === undefined || writer.stopped !== undefined) return;
    const open: Record<string, unknown> = {};
    for (const o of live) {
      if (o.txid === null || !RESTING_STATES.has(o.state)) continue;
      open[o.txid] = {
        descr: { pair: pair.altname, type: o.side, ordertype: 'limit', price: o.price },
        vol: o.volume,
        vol_exec: o.volumeExecuted,
      };
    }
    const now = this.#o.clock.now();
    writer.write({
      askedMs: now,
      receivedMs: now,
      endpoint: 'OwnOrders',
      pair: pair.altname,
      body: JSON.stringify({ error: [], result: { open } }),
    });
  }

  /**
   * Trades of one pair the feed's Trades poll skipped (MarketFeed.onTradesGap): written as a
   * `TradesGap` row, which the reader reports as a gap. Nothing before start.
   */
  tradesGap(pair: PairInfo, gap: TradesGap): void {
    const writer = this.#writer;
    if (writer === undefined || writer.stopped !== undefined) return;
    writer.write(tradesGapRow(pair.altname, this.#o.clock.now(), gap));
  }

  /** Told once if recording stops by itself; the caller decides whether that ends the process. */
  onStop(listener: (err: RecordingStoppedError) => void): void {
    this.#stopListeners.add(listener);
  }

  get stopped(): RecordingStoppedError | undefined {
    return this.#writer?.stopped;
  }

  stats(): RecordingStats {
    return this.#writer?.stats() ?? NO_STATS;
  }

  /** Records nothing more, ends every file whole, and closes the transport if it made it. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.transport.detach();
      await this.#writer?.close();
      if (this.#o.inner === undefined) await this.#inner.close();
    })();
    return this.#closed;
  }
}
