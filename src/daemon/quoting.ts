import { toWire, type DecimalString, type MarketSnapshot } from '../core/index.js';
import type { TickReport } from '../runner/runner.js';

/**
 * What a pair's quotes are held to, as /status and the console show it: the key's fees, the
 * half-spread floor and its parts (maker fee, measured adverse selection, the strategy's own
 * edge), the strategy's model figures, and where each of our resting orders stands in its queue.
 * Built from the runner's last tick; decimal text, every digit kept.
 */
export interface QuotingJson {
  readonly atMs: number;
  readonly fees: {
    readonly makerBps: DecimalString;
    readonly takerBps: DecimalString;
    readonly source: 'trade-volume' | 'ladder';
    readonly volumeUsd: DecimalString;
  };
  readonly adverseSelection: {
    readonly bps: DecimalString;
    readonly horizonMs: number;
    readonly fills: number;
  };
  /** Absent when the strategy returned none (a plugin without a floor). */
  readonly floor?: {
    readonly enabled: boolean;
    readonly halfSpreadBps: DecimalString;
    readonly makerFeeBps: DecimalString;
    readonly adverseBps: DecimalString;
    readonly minEdgeBps: DecimalString;
  };
  readonly model?: Readonly<Record<string, number | string>>;
  readonly queue: readonly QueueJson[];
}

export interface QueueJson {
  readonly txid: string;
  readonly side: 'buy' | 'sell';
  readonly price: DecimalString;
  readonly ahead: DecimalString;
  readonly behind: DecimalString;
  readonly source: 'level3' | 'depth';
  readonly rule: string;
}

export function quotingJson(report: TickReport): QuotingJson {
  const s: MarketSnapshot = report.snapshot;
  const floor = report.floor;
  return {
    atMs: s.takenAtMs,
    fees: {
      makerBps: toWire(s.fees.makerBps),
      takerBps: toWire(s.fees.takerBps),
      source: s.fees.source,
      volumeUsd: toWire(s.fees.volumeUsd),
    },
    adverseSelection: {
      bps: toWire(s.adverseSelection.bps.toDecimalPlaces(4)),
      horizonMs: s.adverseSelection.horizonMs,
      fills: s.adverseSelection.fills,
    },
    ...(floor === undefined
      ? {}
      : {
          floor: {
            enabled: floor.enabled,
            halfSpreadBps: toWire(floor.halfSpreadBps.toDecimalPlaces(4)),
            makerFeeBps: toWire(floor.makerFeeBps),
            adverseBps: toWire(floor.adverseBps.toDecimalPlaces(4)),
            minEdgeBps: toWire(floor.minEdgeBps),
          },
        }),
    ...(report.model === undefined ? {} : { model: report.model }),
    queue: s.queue.map((q) => ({
      txid: q.txid,
      side: q.side,
      price: toWire(q.price),
      ahead: toWire(q.ahead),
      behind: toWire(q.behind),
      source: q.source,
      rule: q.rule,
    })),
  };
}
