import type { SpotClient } from '../../src/exchange/index.js';

/**
 * Polls `probe` until it returns something other than undefined or false, or fails naming `what`
 * after `ms`. For state that settles asynchronously (an order on the simulator's book, a flag in
 * Redis).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 20_000,
  everyMs = 20,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** What the simulator's /_sim/state says, as far as the safety tests read it. */
export interface SimStateView {
  readonly status: string;
  readonly open_orders: readonly {
    key: string;
    txid: string;
    pair: string;
    side: 'buy' | 'sell';
    price: string;
  }[];
  readonly rejections: Readonly<Record<string, number>>;
  readonly dead_man: Readonly<Record<string, { trigger_at: number }>>;
  readonly dead_man_firings: readonly { key: string; atMs: number; cancelled: number }[];
  readonly faults: { readonly counts: Readonly<Record<string, number>> };
}

export async function simState(simUrl: string): Promise<SimStateView> {
  return (await (await fetch(`${simUrl}/_sim/state`)).json()) as SimStateView;
}

/** `n` resting bids far under the market (30000, 30001, ...), one AddOrder each. */
export async function placeBids(client: Pick<SpotClient, 'addOrder'>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await client.addOrder({
      pair: 'XBTUSD',
      type: 'buy',
      ordertype: 'limit',
      price: `${30_000 + i}.0`,
      volume: '0.01',
    });
  }
}
