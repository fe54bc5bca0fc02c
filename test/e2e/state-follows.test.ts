import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pageEvents } from '../support/console-stream.js';
import { startPaperRun, type PaperRun } from '../support/paper-run.js';
import { until } from '../support/until.js';

/** How soon after the exchange holds none of our orders /status and the page must say so. */
const FOLLOW_MS = 1_000;

/**
 * The console's stream as the page reads it: the time each `state` event arrived and how many
 * of our orders it lists.
 */
function watchPage(url: string): { listed: { atMs: number; orders: number }[]; stop(): void } {
  const listed: { atMs: number; orders: number }[] = [];
  const controller = new AbortController();
  void (async () => {
    const res = await fetch(url, { signal: controller.signal });
    for await (const { name, state } of pageEvents(res.body as AsyncIterable<Uint8Array>)) {
      if ((name !== 'state' && name !== 'patch') || state === undefined) continue;
      const pairs = (state as { pairs: { orders: unknown[] }[] }).pairs;
      listed.push({
        atMs: Date.now(),
        orders: pairs.reduce((n, p) => n + p.orders.length, 0),
      });
    }
  })().catch(() => undefined);
  return { listed, stop: () => controller.abort() };
}

interface StatusView {
  readonly mode: string;
  readonly pairs: readonly { readonly altname: string; readonly openOrders: number }[];
}

/**
 * Issue #41 item 5, black-box: after a halt the exchange holds none of our orders within a
 * CancelAll's round trip; `/status` (and with it the metrics, which read the same tracker) and
 * the console's page must stop listing them within a second of that, not at the next periodic
 * sync. /status follows in about 0.1 s; the page, told by the runner's report, in about 0.2 s.
 */
void describe('makerd run: /status and the page follow the exchange after a halt', () => {
  let run: PaperRun;
  let http: string;

  before(async () => {
    run = await startPaperRun(41);
    ({ http } = await run.start());
    await until(
      'both pairs quoted',
      async () => new Set((await run.orders()).map((o) => o.pair)).size === 2 || undefined,
    );
  });
  after(() => run.close());

  const status = async (): Promise<StatusView> =>
    (await (await fetch(`${http}/status`)).json()) as StatusView;
  const listed = (s: StatusView): number => s.pairs.reduce((n, p) => n + p.openOrders, 0);

  void it('/status and the page list no order within a second of the exchange holding none', async (t) => {
    await until('/status listing the orders', async () => listed(await status()) > 0 || undefined);
    const page = watchPage(`${http}/console/stream`);
    t.after(() => page.stop());
    await until('the page listing the orders', () => page.listed.some((e) => e.orders > 0));
    const res = await fetch(`${http}/halt`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'state-follows test', by: 'test' }),
    });
    assert.equal(res.status, 200, await res.text());
    const haltedAt = Date.now();
    // Every 100 ms: the exchange's book, then /status.
    let goneAt: number | undefined;
    const samples: string[] = [];
    const followedAt = await until(
      '/status listing no order',
      async () => {
        const onBook = (await run.orders()).length;
        const s = await status();
        const now = Date.now();
        if (onBook === 0) goneAt ??= now;
        samples.push(`${now - haltedAt} ms: book ${onBook}, status ${listed(s)}`);
        return goneAt !== undefined && listed(s) === 0 ? now : undefined;
      },
      30_000,
      100,
    );
    assert.ok(goneAt !== undefined);
    const emptiedAt = goneAt;
    t.diagnostic(
      `halt to an empty book ${goneAt - haltedAt} ms; to /status listing none ${followedAt - haltedAt} ms`,
    );
    assert.ok(
      followedAt - goneAt <= FOLLOW_MS,
      `/status listed cancelled orders ${followedAt - goneAt} ms after the book emptied:\n${samples.join('\n')}`,
    );
    assert.equal((await status()).mode, 'halted');
    const pageAt = await until('the page listing no order', () =>
      page.listed.find((e) => e.atMs >= haltedAt && e.orders === 0),
    );
    t.diagnostic(
      `the page listing none ${pageAt.atMs - haltedAt} ms after the halt, ${pageAt.atMs - emptiedAt} ms after the empty book`,
    );
    const seen = page.listed.map((e) => `${e.atMs - haltedAt} ms: page ${e.orders}`);
    assert.ok(
      pageAt.atMs - emptiedAt <= FOLLOW_MS,
      `the page listed cancelled orders ${pageAt.atMs - emptiedAt} ms after the book emptied:\n${seen.join('\n')}`,
    );
  });
});
