/**
 * A Depth answer as the exchange sends it for `count=500`: one pair, 500 asks ascending and 500
 * bids descending from a mid near 67,123, prices and volumes as fixed-decimal strings, integer
 * Unix-second timestamps.
 */
export function depthBody(levels = 500, pair = 'XXBTZUSD'): string {
  // A small deterministic generator so every run parses the same bytes.
  let seed = 0x2545f491;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const mid = 67_123.4;
  const now = 1_716_000_000;
  const row = (price: number): [string, string, number] => [
    price.toFixed(5),
    (0.0001 + rnd() * 4).toFixed(3),
    now - Math.floor(rnd() * 600),
  ];
  const asks: [string, string, number][] = [];
  const bids: [string, string, number][] = [];
  // Ticks of 0.1 with the odd empty price level, kept in integer tenths to avoid drift.
  let ask = Math.round(mid * 10);
  let bid = ask;
  for (let i = 0; i < levels; i++) {
    ask += 1 + Math.floor(rnd() * 3);
    bid -= 1 + Math.floor(rnd() * 3);
    asks.push(row(ask / 10));
    bids.push(row(bid / 10));
  }
  return JSON.stringify({ error: [], result: { [pair]: { asks, bids } } });
}
