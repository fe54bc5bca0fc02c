/**
 * Issue #34: the operator console's server side against `makerd run` trading the simulator. The
 * stream carries both pairs with the figures /status shows; every action needs the session's
 * CSRF value and a name, and leaves an audit line; a pulled pair's orders leave the book while
 * the other pair keeps quoting. Issue #41: every action from the console, POST /halt|resume and
 * the shell lands on the audit trail with its outcome, which the stream carries apart from the
 * warnings and `makerd audit` lists.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { hostname, userInfo } from 'node:os';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import type { ConsoleHistory, ConsoleSession, ConsoleState } from '../../src/console/state.js';
import { applyStatePatch } from '../../src/console/state-patch.js';
import { startPaperRun, type Bot, type PaperRun } from '../support/paper-run.js';
import { BIN, stop } from '../support/spawn.js';
import { until } from '../support/until.js';

/** The simulator's pair ids (its order rows name pairs so). */
const XBT = 'XXBTZUSD';
const ETH = 'XETHZUSD';

/** The halt flag as /status reports it. */
async function flagsOf(url: string): Promise<{ halted: boolean; reason?: string }> {
  return ((await (await fetch(`${url}/status`)).json()) as { halt: { halted: boolean } }).halt;
}

/** Reads a console stream, keeping its events (patches applied); `close()` drops the connection. */
function openStream(url: string): {
  history: () => ConsoleHistory | undefined;
  latest: () => ConsoleState | undefined;
  states: () => number;
  close: () => void;
} {
  const controller = new AbortController();
  let history: ConsoleHistory | undefined;
  let latest: ConsoleState | undefined;
  let states = 0;
  void (async () => {
    const res = await fetch(`${url}/console/stream`, { signal: controller.signal });
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? 'null';
        if (event === 'history') history = JSON.parse(data) as ConsoleHistory;
        if (event === 'state' || event === 'patch') {
          const value: unknown = JSON.parse(data);
          latest = (event === 'state' ? value : applyStatePatch(latest, value)) as ConsoleState;
          states++;
        }
      }
    }
  })().catch(() => undefined);
  return {
    history: () => history,
    latest: () => latest,
    states: () => states,
    close: () => controller.abort(),
  };
}

void describe('operator console: server side', () => {
  let run: PaperRun;
  let bot: Bot;
  let http: string;
  let session: ConsoleSession;
  let stream: ReturnType<typeof openStream>;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${http}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-makerd-csrf': session.csrf,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const pairOf = (s: ConsoleState | undefined, pair: string) =>
    s?.pairs.find((p) => p.pair === pair);

  before(async () => {
    run = await startPaperRun(71);
    ({ bot, http } = await run.start());
    session = (await (await fetch(`${http}/console/session`)).json()) as ConsoleSession;
    stream = openStream(http);
  });
  after(async () => {
    stream.close();
    if (bot !== undefined) await stop(bot.child);
    await run.close();
  });

  it('streams both pairs with their book, our orders and the figures /status shows', async () => {
    assert.equal(session.tokenRequired, false);
    assert.ok(session.csrf.length >= 24, 'a CSRF value');
    const state = await until('both pairs quoted on the stream', () => {
      const s = stream.latest();
      return ['XBTUSD', 'ETHUSD'].every((p) => (pairOf(s, p)?.orders.length ?? 0) > 0)
        ? s
        : undefined;
    });
    assert.ok(stream.history() !== undefined, 'the history came first');
    const status = (await (await fetch(`${http}/status`)).json()) as {
      pairs: { altname: string; ratecount: { max: number }; executor: boolean }[];
    };
    for (const p of status.pairs) {
      const shown = pairOf(state, p.altname);
      assert.ok(shown !== undefined, p.altname);
      assert.equal(shown.executor, p.executor);
      assert.equal(shown.ratecount.max, p.ratecount.max);
      assert.ok(Number(shown.book?.bid) < Number(shown.book?.ask), `${p.altname} book`);
      assert.ok(shown.orders.every((o) => o.level !== undefined && Number(o.volume) > 0));
      const depth = shown.dataAges.find((d) => d.source === 'depth');
      assert.ok(depth !== undefined && depth.ageMs < 10_000, `${p.altname} depth age`);
      assert.ok((depth.staleAfterMs ?? 0) > 0, 'with the age past which the runner takes it stale');
      assert.equal(shown.ratecount.planned, shown.ratecount.max - 2, 'max less headroom_points');
    }
    assert.equal(state.halt.halted, false);
    assert.ok((state.pnlSinceMs ?? Infinity) <= state.atMs, 'the PnL says since when');
    assert.equal(state.roles.runner.alive, true);
    assert.equal(state.roles.supervisor.alive, true);
    assert.equal(state.supervisor?.exchange, 'online');
    assert.ok((state.supervisor?.deadManTriggerAtMs ?? 0) > state.atMs, 'dead-man armed');
  });

  it('refuses an action without the CSRF value, a JSON body or a name, saying which', async () => {
    const noCsrf = await post(
      '/console/halt',
      { reason: 'x', operator: 'alice' },
      {
        'x-makerd-csrf': 'wrong',
      },
    );
    assert.equal(noCsrf.status, 403);
    assert.deepEqual(await noCsrf.json(), {
      error: 'missing or stale X-Makerd-CSRF: reload the console',
    });
    const form = await post(
      '/console/halt',
      { reason: 'x', operator: 'alice' },
      {
        'content-type': 'text/plain',
      },
    );
    assert.equal(form.status, 415);
    const unnamed = await post('/console/halt', { reason: 'x' });
    assert.equal(unnamed.status, 400);
    assert.deepEqual(await unnamed.json(), {
      error: 'operator: required (it goes into the audit log)',
    });
    const unknownPair = await post('/console/pull', { pair: 'DOGEUSD', operator: 'alice' });
    assert.deepEqual(await unknownPair.json(), {
      error: 'pair: DOGEUSD is not traded here (XBTUSD, ETHUSD)',
    });
    assert.equal(stream.latest()?.halt.halted, false, 'nothing was halted');
  });

  it('pulls one pair: its orders leave the book, the other keeps quoting, restore brings them back', async () => {
    const pulled = await post('/console/pull', { pair: 'ethusd', operator: 'alice' });
    assert.equal(pulled.status, 200, await pulled.clone().text());
    await until('ETH orders cancelled, XBT still quoted', async () => {
      const orders = await run.orders();
      return orders.every((o) => o.pair !== ETH) && orders.some((o) => o.pair === XBT)
        ? true
        : undefined;
    });
    await until('the stream shows ETHUSD pulled', () =>
      pairOf(stream.latest(), 'ETHUSD')?.pulled === true ? true : undefined,
    );
    const status = (await (await fetch(`${http}/status`)).json()) as {
      pairs: { altname: string; pulled?: { by: string } }[];
    };
    assert.equal(
      status.pairs.find((p) => p.altname === 'ETHUSD')?.pulled?.by,
      'operator:console (alice)',
      '/status and makerd status say so too',
    );
    assert.ok(
      bot.lines.some(
        (l) =>
          l.audit === true && l.action === 'pull' && l.actor === 'alice' && l.pair === 'ETHUSD',
      ),
      'an audit line names who pulled what',
    );
    await post('/console/restore', { pair: 'ETHUSD', operator: 'alice' });
    await until(
      'ETH quoted again',
      async () => ((await run.orders()).some((o) => o.pair === ETH) ? true : undefined),
      30_000,
    );
  });

  it('halts with a reason and resumes, each on the audit trail with its outcome', async () => {
    const halted = await post('/console/halt', { reason: 'checking the console', operator: 'bob' });
    assert.equal(halted.status, 200, await halted.clone().text());
    const state = await until('the stream shows the halt', () => {
      const s = stream.latest();
      return s?.halt.halted === true ? s : undefined;
    });
    assert.equal(state.halt.reason, 'checking the console');
    assert.equal(state.halt.by, 'operator:console (bob)');
    await until('no order left', async () =>
      (await run.orders()).length === 0 ? true : undefined,
    );
    const entry = await until('the audit entry on the stream', () =>
      stream.latest()?.audit.find((e) => e.action === 'halt' && e.actor === 'bob'),
    );
    assert.deepEqual(
      [entry.door, entry.reason, entry.changed, entry.outcome],
      ['console', 'checking the console', true, 'halted'],
    );
    assert.match(entry.remote ?? '', /127\.0\.0\.1/);
    assert.ok(
      stream.latest()?.events.every((e) => e.level === 'warn' || e.level === 'error'),
      'actions are not mixed into the warnings',
    );

    // A second halt changes nothing, and says whose halt stays.
    const again = await post('/console/halt', { reason: 'a second reason', operator: 'carol' });
    const againBody = (await again.json()) as { changed: boolean; outcome: string };
    assert.equal(againBody.changed, false);
    assert.match(
      againBody.outcome,
      /^already halted by operator:console \(bob\) for checking the console since \S+: not changed$/,
    );
    assert.equal((await flagsOf(http)).reason, 'checking the console', 'the first reason stays');

    // POST /resume (curl, scripts) names its caller too; a second one changed nothing.
    const resumed = await fetch(`${http}/resume`, {
      method: 'POST',
      body: JSON.stringify({ operator: 'dave' }),
    });
    assert.match(
      ((await resumed.json()) as { outcome: string }).outcome,
      /^resumed; was halted by operator:console \(bob\) for checking the console/,
    );
    const idle = await fetch(`${http}/resume`, { method: 'POST' });
    assert.deepEqual(await idle.json(), {
      resumed: false,
      outcome: 'not halted: nothing to resume',
    });
    const trail = await until('both resumes on the stream', () => {
      const audit = stream.latest()?.audit ?? [];
      return audit.filter((e) => e.action === 'resume').length >= 2 ? audit : undefined;
    });
    assert.deepEqual(
      trail.slice(0, 3).map((e) => [e.action, e.door, e.actor, e.changed]),
      [
        ['resume', 'http', 'unnamed', false],
        ['resume', 'http', 'dave', true],
        ['halt', 'console', 'carol', false],
      ],
      'newest first',
    );
    assert.ok(
      bot.lines.some((l) => l.audit === true && l.action === 'resume' && l.actor === 'dave'),
    );
    // The runner republishes an unchanged quote after republish_after_ms (10 s).
    await until(
      'quoting again',
      async () => ((await run.orders()).length > 0 ? true : undefined),
      30_000,
    );
  });

  it('makerd pull and restore do from a shell what the console does', async () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [BIN, ...args, '--config', run.config], {
        env: { ...process.env, MAKERD_API_KEY: run.apiKey, MAKERD_API_SECRET: run.apiSecret },
      });
    const pulled = JSON.parse(
      (await cli('pull', 'xethzusd', '--reason', 'from a shell')).stdout,
    ) as {
      pulled: string;
      reason: string;
      sinceMs: number;
      outcome: string;
    };
    const shell = `${userInfo().username}@${hostname()}`;
    assert.equal(pulled.outcome, 'pulled');
    assert.equal(pulled.pulled, 'ETHUSD', 'the id names the pair too');
    assert.equal(pulled.reason, 'from a shell');
    await until('the stream shows ETHUSD pulled', () =>
      pairOf(stream.latest(), 'ETHUSD')?.pulled === true ? true : undefined,
    );
    assert.deepEqual(JSON.parse((await cli('restore', 'ETHUSD')).stdout), {
      restored: 'ETHUSD',
      was: 'pulled',
      outcome: `restored; was pulled by operator:${shell} for from a shell since ${new Date(pulled.sinceMs).toISOString()}`,
    });
    const listed = (await cli('audit', '--limit', '2')).stdout.split('\n');
    assert.match(
      listed[0] ?? '',
      new RegExp(`^\\S+ pull ETHUSD by ${shell} via cli: from a shell => pulled$`),
    );
    assert.match(
      listed[1] ?? '',
      new RegExp(`^\\S+ restore ETHUSD by ${shell} via cli => restored; was pulled`),
    );
    assert.equal(listed[2], '', 'two lines, newest last');
    await assert.rejects(cli('pull', 'DOGEUSD'), (err: { stderr: string }) =>
      /pair: DOGEUSD is not traded by this config \(XBTUSD, ETHUSD\)/.test(err.stderr),
    );
  });
});
