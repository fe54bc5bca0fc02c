import { dec, InvalidInputError, type PairInfo } from '../core/index.js';
import type { AssetPair, SpotClient } from '../exchange/index.js';
import { feeLadderOf } from './fees.js';

/**
 * Resolves the pair names an operator wrote (id `XXBTZUSD`, altname `XBTUSD` or wsname
 * `XBT/USD`) with one AssetPairs call, so a typo fails at start with the names that would work.
 */
export async function loadPairs(
  client: SpotClient,
  names: readonly string[],
  options: { signal?: AbortSignal } = {},
): Promise<PairInfo[]> {
  const { result } = await client.assetPairs(
    {},
    options.signal === undefined ? {} : { signal: options.signal },
  );
  return resolvePairs(result, names);
}

/** The pure half of loadPairs: AssetPairs result in, PairInfo out, in the order asked, deduped. */
export function resolvePairs(
  assetPairs: Readonly<Record<string, AssetPair>>,
  names: readonly string[],
): PairInfo[] {
  const byName = new Map<string, string>();
  for (const [id, p] of Object.entries(assetPairs)) {
    for (const name of [id, p.altname, p.wsname]) {
      if (name !== undefined && name !== '') byName.set(name.toUpperCase(), id);
    }
  }
  const out: PairInfo[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const id = byName.get(name.trim().toUpperCase());
    const raw = id === undefined ? undefined : assetPairs[id];
    if (id === undefined || raw === undefined) {
      const known = Object.values(assetPairs)
        .map((p) => p.altname)
        .sort()
        .join(', ');
      throw new InvalidInputError('pairs', `unknown pair ${JSON.stringify(name)}; known: ${known}`);
    }
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(pairInfoOf(id, raw));
  }
  return out;
}

export function pairInfoOf(id: string, p: AssetPair): PairInfo {
  const costMin = p.costmin === '' ? undefined : dec(p.costmin);
  return Object.freeze({
    id,
    altname: p.altname,
    base: p.base,
    quote: p.quote,
    tickSize: dec(p.tick_size),
    priceDecimals: p.pair_decimals,
    lotDecimals: p.lot_decimals,
    orderMin: dec(p.ordermin),
    // A zero minimum is no minimum: quoting code then needs no special case for it.
    costMin: costMin === undefined || costMin.isZero() ? undefined : costMin,
    feeLadder: Object.freeze({
      maker: Object.freeze(feeLadderOf(p.fees_maker)),
      taker: Object.freeze(feeLadderOf(p.fees)),
    }),
  });
}
