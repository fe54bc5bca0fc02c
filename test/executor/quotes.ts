/** Quotes the executor tests publish: XBTUSD bids under 49000 and asks over 51000, by level. */
export const SLOTS = ['bid:0', 'bid:1', 'ask:0', 'ask:1'] as const;

/** The quote of `slot`, moved by `offset` dollars. */
export function quote(
  slot: string,
  offset: number,
): { side: 'buy' | 'sell'; price: string; volume: string } {
  const level = Number(slot.slice(4));
  return slot.startsWith('bid')
    ? { side: 'buy', price: String(49_000 - 10 * level + offset), volume: '0.01' }
    : { side: 'sell', price: String(51_000 + 10 * level + offset), volume: '0.01' };
}
