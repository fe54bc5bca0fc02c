/**
 * The console's event stream under load it does not control: a page that reads gets each
 * second's state as a patch of what changed, and a change it is told of soon after, a burst as
 * one patch; a page whose connection takes nothing costs one state, not a queue, gets the newest
 * state in one patch when it reads again, and is dropped after STUCK_AFTER_MS; one stream past
 * the cap is refused with 503.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/index.js';
import {
  CHANGED_SOONEST_MS,
  ConsoleHub,
  STATE_EVERY_MS,
  STUCK_AFTER_MS,
} from '../../src/console/console-hub.js';
import type { ConsoleState } from '../../src/console/state.js';
import { applyStatePatch } from '../../src/console/state-patch.js';
import { startHttpServer } from '../../src/obs/index.js';
import { SseParser } from '../../console/sse.js';
import { recordingLog } from '../support/recording-log.js';
import { until } from '../support/until.js';

/** A state a second: the clock's time, and a block of text that changes each second. */
function stateAt(clock: ManualClock, blockBytes: number): ConsoleState {
  const second = Math.floor(clock.now() / 1000);
  return {
    atMs: clock.now(),
    instance: 'hub-test',
    halt: { halted: false },
    roles: {
      runner: { alive: true, beatAgeMs: 100 },
      executor: { alive: true, beatAgeMs: 100 },
      supervisor: { alive: true },
    },
    pairs: [],
    audit: [],
    events: [
      { tMs: 1, level: 'warn', source: 'runner', message: 'the same each second '.repeat(50) },
      { tMs: 2, level: 'warn', source: 'runner', message: `${second}`.repeat(blockBytes / 10) },
    ],
  };
}

/** A hub behind makerd's HTTP server; `responses` are the server's side of each stream. */
async function serve(hub: ConsoleHub) {
  const responses: ServerResponse[] = [];
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    tokens: {},
    routes: {
      'GET /console/stream': () => {
        const answer = hub.answer();
        if (!('stream' in answer)) return answer;
        return {
          stream: (res) => {
            responses.push(res);
            answer.stream(res);
          },
        };
      },
    },
  });
  const { port } = new URL(server.url);
  return {
    responses,
    /** Opens a stream; its body is paused until the test reads it. */
    open: async (): Promise<IncomingMessage> => {
      const req = get({ host: '127.0.0.1', port, path: '/console/stream' });
      const [res] = (await once(req, 'response')) as [IncomingMessage];
      res.pause();
      return res;
    },
    close: async () => {
      hub.close();
      await server.close();
    },
  };
}

/** Reads a stream's events, rebuilding the state from the first one and the patches after it. */
function follow(res: IncomingMessage) {
  const parser = new SseParser();
  const seen = { state: undefined as ConsoleState | undefined, patches: 0, bytes: 0 };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    for (const e of parser.push(chunk)) {
      if (e.event === 'state') seen.state = JSON.parse(e.data) as ConsoleState;
      if (e.event === 'patch') {
        seen.patches += 1;
        seen.bytes += e.data.length;
        seen.state = applyStatePatch(seen.state, JSON.parse(e.data)) as ConsoleState;
      }
    }
  });
  res.resume();
  return seen;
}

/** A hub over `state`, with no history, on `clock`. */
function hubOf(
  clock: ManualClock,
  state: () => Promise<ConsoleState>,
  maxStreams = 2,
  log = recordingLog().log,
): ConsoleHub {
  return new ConsoleHub({
    state,
    history: () => Promise.resolve({ pairs: [] }),
    clock,
    log,
    maxStreams,
  });
}

void describe('console stream hub', () => {
  const clock = new ManualClock(1_800_000_000_000);
  let block = 1000;
  const { lines: info, log } = recordingLog();
  const hub = hubOf(clock, () => Promise.resolve(stateAt(clock, block)), 4, log);
  let server: Awaited<ReturnType<typeof serve>>;
  before(async () => {
    server = await serve(hub);
  });
  after(() => server.close());

  it('sends a page each second only what changed, which rebuilds the state whole', async () => {
    const seen = follow(await server.open());
    await until('the first state', () => seen.state);
    for (let i = 0; i < 5; i++) await clock.advance(1000);
    const want = stateAt(clock, block);
    await until('the newest state rebuilt', () =>
      seen.state?.atMs === want.atMs ? true : undefined,
    );
    assert.deepEqual(seen.state, want);
    assert.equal(seen.patches, 5);
    const whole = JSON.stringify(want).length;
    assert.ok(
      seen.bytes / seen.patches < whole / 2,
      `a patch (${seen.bytes / seen.patches} bytes) is not the state (${whole})`,
    );
    server.responses.at(-1)?.destroy();
  });

  /** A stream nobody reads, sent big states until its connection refuses more. */
  async function stalled(): Promise<{ res: IncomingMessage; side: ServerResponse }> {
    block = 256 * 1024;
    const res = await server.open();
    const side = server.responses.at(-1);
    assert.ok(side !== undefined);
    // The kernel's buffers take some seconds' states before the connection refuses more.
    for (let i = 0; i < 200 && side.writableLength === 0; i++) await clock.advance(1000);
    assert.ok(side.writableLength > 0, 'the connection never refused more');
    return { res, side };
  }
  afterEach(() => {
    block = 1000;
  });

  it('writes nothing more to a page that takes nothing, then sends it the newest state in one patch', async () => {
    const { res, side } = await stalled();
    const queued = side.writableLength;
    for (let i = 0; i < 20; i++) await clock.advance(1000);
    assert.ok(
      side.writableLength <= queued,
      `${side.writableLength} bytes queued after 20 s, ${queued} when it stopped taking`,
    );
    const want = stateAt(clock, block);
    const seen = follow(res);
    await until('the newest state rebuilt', () =>
      seen.state?.atMs === want.atMs ? true : undefined,
    );
    assert.deepEqual(seen.state, want);
    assert.ok(seen.patches < 20, `${seen.patches} patches: the 20 s it missed came as one`);
    res.destroy();
  });

  it('drops a page that takes nothing for 30 s', async () => {
    const { res, side } = await stalled();
    const closed = once(side, 'close');
    await clock.advance(STUCK_AFTER_MS);
    await closed;
    res.destroy();
    const line = info.find((l) => l.msg === 'console: slow stream dropped');
    assert.equal(line?.fields.why, 'took nothing for 30 s');
    assert.equal(hub.pages, 0);
  });
});

void describe('console stream hub: changes', () => {
  it('sends a burst of changes as one patch, CHANGED_SOONEST_MS after the last at the soonest', async () => {
    const clock = new ManualClock(1_800_000_000_000);
    let halts = 0;
    let reads = 0;
    const hub = hubOf(clock, () => {
      reads += 1;
      const halt = halts === 0 ? { halted: false } : { halted: true, reason: `halt ${halts}` };
      return Promise.resolve({ ...stateAt(clock, 10), halt });
    });
    const server = await serve(hub);
    try {
      const res = await server.open();
      const seen = follow(res);
      await until('the first state', () => seen.state);
      await clock.advance(STATE_EVERY_MS);
      await until("the second's patch", () => seen.patches === 1 || undefined);
      const lastAt = clock.now();

      await clock.advance(50);
      const readsBefore = reads;
      for (let i = 0; i < 5; i++) {
        halts += 1;
        hub.changed();
      }
      await clock.advance(CHANGED_SOONEST_MS);
      await until('the last change on the page', () =>
        seen.state?.halt.reason === 'halt 5' ? true : undefined,
      );
      assert.equal(seen.state?.atMs, lastAt + CHANGED_SOONEST_MS, 'read when it was due');
      assert.equal(seen.patches, 2, 'five changes, one patch');
      assert.equal(reads - readsBefore, 1, 'five changes, one read');

      await clock.advance(STATE_EVERY_MS);
      const nextAt = lastAt + CHANGED_SOONEST_MS + STATE_EVERY_MS;
      await until('the next second', () => (seen.state?.atMs === nextAt ? true : undefined));

      res.destroy();
      await until('the page gone', () => (hub.pages === 0 ? true : undefined));
      const readsClosed = reads;
      hub.changed();
      await clock.advance(STATE_EVERY_MS);
      assert.equal(reads, readsClosed, 'no page, no read');
      assert.equal(clock.pending, 0, 'no timer left');
    } finally {
      await server.close();
    }
  });
});

void describe('console stream cap', () => {
  it('answers 503 naming http.max_streams to one stream more than it allows', async () => {
    const clock = new ManualClock();
    const hub = hubOf(clock, () => Promise.resolve(stateAt(clock, 10)));
    const server = await serve(hub);
    try {
      const first = await server.open();
      const second = await server.open();
      assert.equal([first.statusCode, second.statusCode].join(), '200,200');
      const third = await server.open();
      assert.equal(third.statusCode, 503);
      third.resume();
      first.destroy();
      await until('a stream closed', () => (hub.pages === 1 ? true : undefined));
      const again = await server.open();
      assert.equal(again.statusCode, 200, 'a place came free');
      again.destroy();
      second.destroy();
    } finally {
      await server.close();
    }
  });
});
