/**
 * Nothing an outsider wrote reaches a terminal raw (issue #41): the console's halt with operator
 * `eve<ESC>[2J<ESC>]0;pwned<BEL>` (clears the screen, sets the window title) and reason `a<LF>b`
 * (forges a status line) shows as escapes wherever makerd prints for a person.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { PulledPairs, RedisControlFlags } from '../../src/bus/index.js';
import { demoStatusLines } from '../../src/cli/demo-status.js';
import { systemClock } from '../../src/core/index.js';
import { readStatus, type StatusReport } from '../../src/daemon/status-report.js';
import { redisStores } from '../../src/daemon/stores.js';
import { ratecountKeyFor } from '../../src/executor/index.js';
import { loadPairs } from '../../src/market/index.js';
import { createLogger, startHttpServer } from '../../src/obs/index.js';
import { prettyLog } from '../../src/obs/pretty-log.js';
import { closedPort } from '../support/client-for.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { startTestSim } from '../support/sim.js';
import { BIN } from '../support/spawn.js';

const run = promisify(execFile);

const OPERATOR = 'eve\u001b[2J\u001b]0;pwned\u0007';
const BY = `operator:console (${OPERATOR})`;
const REASON = 'a\nb';

/** Any C0 or C1 control or DEL but the line breaks between lines. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** What a printed text must look like: escapes, one line per fact, none begun by the reason. */
function assertNothingRaw(text: string): string[] {
  assert.doesNotMatch(text, RAW_CONTROL);
  const lines = text.split('\n');
  assert.deepEqual(
    lines.filter((l) => l.startsWith('b')),
    [],
    'no line forged by the reason',
  );
  return lines;
}

void describe('text from outside is printed as escapes', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  after(() => redis.disconnect());

  void it('makerd status, read from Redis and over --http', async () => {
    const sim = await startTestSim();
    const prefix = freshPrefix();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'makerd-escapes-'));
      const config = join(dir, 'makerd.yaml');
      writeFileSync(
        config,
        stringify({
          exchange: {
            url: sim.url,
            credentials: { from: 'env', key_env: 'TEST_KEY', secret_env: 'TEST_SECRET' },
          },
          redis: { url: REDIS_URL, prefix },
          pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
        }),
      );
      const flags = new RedisControlFlags({ connection: redis, prefix });
      assert.equal(await flags.halt(REASON, BY, Date.now()), true);
      await new PulledPairs(redis, prefix).pull('XBTUSD', {
        by: BY,
        reason: REASON,
        sinceMs: Date.now(),
      });
      const env = {
        ...process.env,
        TEST_KEY: sim.key.apiKey,
        TEST_SECRET: sim.key.apiSecret,
        REDIS_URL: '',
      };
      const expectedFirst =
        /^HALTED: a\\nb \(by operator:console \(eve\\u001b\[2J\\u001b\]0;pwned\\u0007\) since /;

      const fromRedis = (await run(process.execPath, [BIN, 'status', '--config', config], { env }))
        .stdout;
      const lines = assertNothingRaw(fromRedis);
      // The first line names the Redis read; the state's own first line follows.
      assert.match(lines[1] ?? '', expectedFirst);
      assert.ok(lines.some((l) => /^ {2}PULLED by operator:console \(eve\\u001b\[2J/.test(l)));

      // A running process's /status, as the console's halt left it.
      const client = sim.client();
      const stores = redisStores({
        redis,
        prefix,
        ratecountKey: ratecountKeyFor(sim.key.apiKey),
        tier: 'starter',
        clock: systemClock,
      });
      const pairs = await loadPairs(client, ['XBTUSD']);
      const http = await startHttpServer({
        host: '127.0.0.1',
        port: 0,
        tokens: {},
        routes: {
          'GET /status': async () => ({
            json: await readStatus({ stores, pairs, clock: systemClock }),
          }),
        },
      });
      try {
        const overHttp = (await run(process.execPath, [BIN, 'status', '--http', http.url], { env }))
          .stdout;
        assert.match(assertNothingRaw(overHttp)[0] ?? '', expectedFirst);
        const json = (
          await run(process.execPath, [BIN, 'status', '--http', http.url, '--json'], { env })
        ).stdout;
        assert.doesNotMatch(json.trimEnd(), RAW_CONTROL);
        const report = JSON.parse(json) as StatusReport;
        assert.deepEqual([report.halt.by, report.halt.reason], [BY, REASON]);
      } finally {
        await http.close();
        await stores.close();
      }
    } finally {
      await deleteKeys(redis, prefix);
      await sim.close();
    }
  });

  void it("an error's message on stderr", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/${OPERATOR}`;
    await assert.rejects(run(process.execPath, [BIN, 'status', '--http', url]), (err) => {
      const { stderr } = err as { stderr: string };
      assert.match(stderr, /^makerd: no answer from http:\/\/127\.0\.0\.1:\d+\/eve\\u001b\[2J/m);
      assert.doesNotMatch(stderr, RAW_CONTROL);
      return true;
    });
  });

  void it('the demo status line', () => {
    const lines = demoStatusLines(
      {
        atMs: Date.UTC(2026, 0, 1),
        mode: 'halted',
        halt: { halted: true, reason: `${REASON} ${OPERATOR}`, by: BY },
        roles: { runner: { alive: true }, executor: { alive: true } },
        supervisor: undefined,
        pairs: [],
      },
      {},
      new Map(),
      80,
    );
    assert.deepEqual(lines, ['00:00:00 | HALTED (a\\nb eve\\u001b[2J\\u001b]0;pwned\\u0007)']);
  });

  void it('readable (pretty) log lines: message, fields and their names', () => {
    let out = '';
    const destination = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        out += chunk.toString();
        done();
      },
    });
    const log = createLogger({
      destination: prettyLog({ destination, colorize: false, ignore: 'pid,hostname' }),
    });
    log.warn({ by: BY, reason: REASON, [`k${OPERATOR}`]: 1 }, `halted: ${REASON} by ${BY}`);
    log.info({ err: 'EOrder:Unknown order\r\n\u009b2J', ref: 'x\u007f' }, 'poll failed: x\u007fy');
    const error = new Error(`refused: ${REASON} ${OPERATOR}`);
    log.error({ err: { type: 'Error', message: error.message, stack: error.stack } }, 'threw');
    const events = assertNothingRaw(out.trimEnd())
      .join('\n')
      .split(/\n(?=\[)/);
    assert.equal(events.length, 3, out);
    const [halted, failed, threw] = events;
    assert.match(
      halted ?? '',
      /^\[[\d:]+\] WARN: halted: a\\nb by operator:console \(eve\\u001b\[2J\\u001b\]0;pwned\\u0007\) \{.*"reason":"a\\nb"/,
    );
    assert.match(halted ?? '', /"keve\\u001b\[2J/);
    assert.doesNotMatch(halted ?? '', /\n/, 'one line');
    assert.match(failed ?? '', /poll failed: x\\u007fy \{"ref":"x\\u007f"\}/);
    assert.match(failed ?? '', /\n {4}err: "EOrder:Unknown order\\r\\n\\u009b2J"$/);
    // The stack's lines stay lines, indented under the event; its message's controls are escapes.
    assert.match(threw ?? '', /\n {10}Error: refused: a\n {10}b eve\\u001b\[2J/);
  });
});
