import type { Decimal } from '../../core/index.js';
import type { SimPair } from '../markets.js';
import type { Account } from '../state/accounts.js';
import type { BookNode, BookSide } from './book.js';
import type { Hold } from './holds.js';
import type { BookView, PublicTrade, SimOrder, SimTrade } from './types.js';
import type { VolumeWindow } from './volume.js';

/** The engine's working state of an open or pending order, next to the SimOrder clients see. */
export interface LiveOrder {
  readonly order: SimOrder;
  readonly account: Account;
  readonly book: PairBook;
  readonly feeInBase: boolean;
  /** Base volume left; for viqc market orders, quote left. */
  remaining: Decimal;
  hold: Hold;
  node: BookNode<LiveOrder> | undefined;
  /** `start`: starttm in the future. `trigger`: an armed stop waiting for its price. */
  waiting: 'start' | 'trigger' | undefined;
  /**
   * Executes as a market order (market, or a market-type stop that fired): its hold is a cost
   * estimate that shrinks by what each fill spends rather than a function of the remaining volume.
   */
  marketExec: boolean;
  /** Trailing stops: the best reference price since placement (high for a sell, low for a buy). */
  extreme: Decimal | undefined;
  /** Market orders waiting for starttm: the last price at placement, which their hold uses. */
  reservePrice: Decimal | undefined;
}

export interface PairBook {
  readonly pair: SimPair;
  readonly bids: BookSide<LiveOrder>;
  readonly asks: BookSide<LiveOrder>;
  last: PublicTrade | undefined;
  nextTradeId: number;
  /** Last queue timestamp handed out: keeps Level3 times unique and increasing per pair. */
  lastNs: bigint;
  /** Armed stops, in arming order. */
  readonly triggers: Set<LiveOrder>;
  /** Bumped on every book change; the full view is cached against it. */
  version: number;
  view: { readonly version: number; readonly view: BookView } | undefined;
}

export interface AccountBook {
  /** Open and pending orders by txid, in placement order (oldest first). */
  readonly live: Map<string, LiveOrder>;
  readonly livePerPair: Map<string, number>;
  /** In closing order (oldest first). */
  readonly closed: SimOrder[];
  readonly trades: SimTrade[];
  readonly volume: VolumeWindow;
}
