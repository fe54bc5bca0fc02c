import { dec, type Clock, type PairInfo } from '../core/index.js';
import type { SpotClient } from '../exchange/index.js';
import { FOREIGN_SLOT, type OrderReader } from '../orders/index.js';
import type { PairRisk, RiskSource } from '../safety/index.js';

/**
 * The risk limits' inputs for a supervisor (the tracker's live records are every order of ours
 * that may rest: pending, open, partly filled, unknown; those awaiting the exchange's word are
 * marked in doubt): positions and our orders from the executor's tracker (in Redis, so a
 * supervisor in another process sees them too), and the mid of every pair from one public Ticker
 * call.
 */
export function trackerRiskSource(options: {
  readonly tracker: OrderReader;
  readonly client: Pick<SpotClient, 'ticker'>;
  readonly pairs: readonly PairInfo[];
  readonly clock: Clock;
}): RiskSource {
  const { tracker, client, pairs, clock } = options;
  return {
    async read(): Promise<PairRisk[]> {
      const askedAt = clock.now();
      const { result } = await client.ticker({ pair: pairs.map((p) => p.id) });
      return Promise.all(
        pairs.map(async (p): Promise<PairRisk> => {
          const [position, live] = await Promise.all([tracker.position(p.id), tracker.live(p.id)]);
          const row = result[p.id] ?? result[p.altname];
          const ask = row?.a[0];
          const bid = row?.b[0];
          const mid =
            ask === undefined || bid === undefined ? undefined : dec(ask).plus(dec(bid)).div(2);
          return {
            pair: p.id,
            altname: p.altname,
            quoteAsset: p.quote,
            base: dec(position.base),
            quote: dec(position.quote),
            avgPrice: dec(position.avgPrice),
            realizedPnl: dec(position.realizedPnl),
            fills: position.fills,
            mid,
            midAtMs: mid === undefined ? undefined : askedAt,
            orders: live
              .filter((o) => o.slot !== FOREIGN_SLOT)
              .map((o) => ({
                side: o.side,
                price: dec(o.price),
                volume: dec(o.volume).minus(dec(o.volumeExecuted)),
                inDoubt:
                  o.state === 'pending-new' || o.state === 'unknown' || o.pendingCall !== null,
              })),
          };
        }),
      );
    },
  };
}
