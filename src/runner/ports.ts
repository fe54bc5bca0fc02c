import type { OrderIntent } from '../core/intent.js';
import type { MarketSnapshot } from '../core/market.js';
import type { FillEvent } from './strategy-api.js';

/**
 * What the runner needs from its neighbours, as interfaces: the market feed (src/market) and the
 * intent bus (src/bus) satisfy them, and tests can drive the runner without either.
 */
export interface SnapshotSource {
  snapshot(pairId: string): MarketSnapshot;
  /** Fires when new data for the pair arrived. */
  onUpdate(listener: (pairId: string) => void): () => void;
  /** Fires when the exchange's trading mode changes; every pair is re-quoted at once. */
  onModeChange?(listener: () => void): () => void;
}

/** Fills of our orders as the executor's tracker recorded them (the one place fills come from). */
export interface FillSource {
  onFill(listener: (fill: FillEvent) => void): () => void;
}

export type UnpublishedIntent = Omit<OrderIntent, 'generation'>;

export interface PublishOutcome {
  readonly published: readonly OrderIntent[];
  readonly coalesced: number;
}

export interface IntentSink {
  publish(intents: readonly UnpublishedIntent[]): Promise<PublishOutcome>;
}
