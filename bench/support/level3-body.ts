/**
 * A Level3 answer as the exchange sends it: one pair, `orders` resting orders a side (bids
 * descending, asks ascending from a mid near 67,123, a few orders per price level), prices and
 * quantities as fixed-decimal strings, order ids, and queue times in nanoseconds: bare integers
 * beyond 2^53, the reason this body needs the exact parser.
 */
export function level3Body(orders = 500, pair = 'XBTUSD'): string {
  // A small deterministic generator so every run parses the same bytes.
  let seed = 0x1b873593;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 0x1_0000_0000;
  };
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const id = (): string => {
    let s = 'O';
    for (let i = 0; i < 16; i++) s += letters[Math.floor(rnd() * 32)] ?? 'A';
    return `${s.slice(0, 6)}-${s.slice(6, 11)}-${s.slice(11)}`;
  };
  const now = 1_716_000_000_000_000_000n;
  // Texts, not objects: JSON.stringify cannot write a bigint.
  const entry = (tenths: number): string =>
    `{"price":"${(tenths / 10).toFixed(1)}","qty":"${(0.0001 + rnd() * 4).toFixed(8)}",` +
    `"order_id":"${id()}","timestamp":${now - BigInt(Math.floor(rnd() * 6e11))}}`;
  const side = (start: number, step: 1 | -1): string[] => {
    const rows: string[] = [];
    let level = start;
    while (rows.length < orders) {
      level += step * (1 + Math.floor(rnd() * 3));
      const here = 1 + Math.floor(rnd() * 4);
      for (let i = 0; i < here && rows.length < orders; i++) rows.push(entry(level));
    }
    return rows;
  };
  const mid = 671_234;
  const bids = side(mid, -1);
  const asks = side(mid, 1);
  return `{"error":[],"result":{"pair":"${pair}","bids":[${bids.join(',')}],"asks":[${asks.join(',')}]}}`;
}
