/** Order entry a pair's key sent the replayed exchange: what the report's order counts show. */
export interface OrderEntryCount {
  /** Orders placed (AddOrder, each order of an AddOrderBatch). */
  orders: number;
  /** EditOrder calls. */
  edits: number;
  /** Orders cancelled one by one (CancelOrder, each of a CancelOrderBatch); CancelAll apart. */
  cancels: number;
}

/**
 * Counts the order-entry calls the replayed exchange received, per pair altname, refused ones
 * included (the refusals are counted apart). A cancel names an order, not a pair: `pairOfOrder`
 * finds it at the exchange (the order still exists when its cancel is sent).
 */
export class OrderEntryCounts {
  readonly #pairName: (sent: string) => string | undefined;
  readonly #pairOfOrder: (txid: string) => string | undefined;
  readonly #counts = new Map<string, OrderEntryCount>();
  /** CancelAll calls: key-wide (a halt's, as the supervisor sends them). */
  cancelAlls = 0;

  constructor(
    pairName: (sent: string) => string | undefined,
    pairOfOrder: (txid: string) => string | undefined,
  ) {
    this.#pairName = pairName;
    this.#pairOfOrder = pairOfOrder;
  }

  of(altname: string): OrderEntryCount {
    return { ...(this.#counts.get(altname) ?? { orders: 0, edits: 0, cancels: 0 }) };
  }

  /** One request as sent: its endpoint and body (form or JSON). */
  note(endpoint: string, body: string | undefined): void {
    if (!COUNTED.has(endpoint)) return;
    if (endpoint === 'CancelAll') {
      this.cancelAlls += 1;
      return;
    }
    const params = parse(body);
    const pair = (): string | undefined =>
      typeof params['pair'] === 'string' ? this.#pairName(params['pair']) : undefined;
    if (endpoint === 'AddOrder') this.#add(pair(), 'orders', 1);
    else if (endpoint === 'AddOrderBatch') {
      this.#add(pair(), 'orders', Array.isArray(params['orders']) ? params['orders'].length : 0);
    } else if (endpoint === 'EditOrder') this.#add(pair(), 'edits', 1);
    else {
      const txids =
        endpoint === 'CancelOrder' ? [params['txid']] : (params['orders'] as unknown[] | undefined);
      for (const txid of txids ?? []) {
        this.#add(this.#pairOfOrder(String(txid)), 'cancels', 1);
      }
    }
  }

  #add(altname: string | undefined, what: keyof OrderEntryCount, n: number): void {
    if (altname === undefined) return;
    let count = this.#counts.get(altname);
    if (count === undefined)
      this.#counts.set(altname, (count = { orders: 0, edits: 0, cancels: 0 }));
    count[what] += n;
  }
}

const COUNTED = new Set([
  'AddOrder',
  'AddOrderBatch',
  'EditOrder',
  'CancelOrder',
  'CancelOrderBatch',
  'CancelAll',
]);

function parse(body: string | undefined): Record<string, unknown> {
  if (body === undefined || body === '') return {};
  if (body.startsWith('{')) return JSON.parse(body) as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(body));
}
