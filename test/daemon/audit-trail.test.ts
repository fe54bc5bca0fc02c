/**
 * Issue #41: every control action on the record. ControlActions (what the console, HTTP and CLI
 * doors call) against real Redis: each halt, resume, pull and restore appends one entry to the
 * capped audit stream with who, the door, the address, why and the outcome with the state
 * before; a second halt says whose halt stays and changes nothing, a resume with nothing to clear
 * says so. `makerd audit` lists the trail, newest last, control characters escaped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { PulledPairs, RedisControlFlags } from '../../src/bus/index.js';
import { ManualClock, silentLog } from '../../src/core/index.js';
import { AUDIT_KEPT, AuditTrail } from '../../src/daemon/audit-trail.js';
import { ControlActions, appendAudit, ownEntry } from '../../src/daemon/control-actions.js';
import { deleteKeys, freshPrefix, REDIS_URL } from '../support/redis.js';
import { BIN } from '../support/spawn.js';

const T0 = Date.UTC(2026, 0, 5, 9, 30, 0);
const ALICE = { name: 'alice', door: 'console', remote: '203.0.113.7' } as const;
const SHELL = { name: 'bob@desk', door: 'cli' } as const;

void describe('audit trail', () => {
  let redis: Redis;
  let prefix: string;
  let flags: RedisControlFlags;
  let trail: AuditTrail;
  let actions: ControlActions;
  let clock: ManualClock;

  before(() => {
    redis = new Redis(REDIS_URL);
  });
  after(() => redis.quit());
  beforeEach(() => {
    prefix = freshPrefix();
    clock = new ManualClock(T0);
    flags = new RedisControlFlags({ connection: redis, prefix, clock, subscribe: false });
    trail = new AuditTrail(redis, prefix);
    actions = new ControlActions({
      flags,
      pulled: new PulledPairs(redis, prefix),
      trail,
      clock,
      log: silentLog,
      halt: async (reason, by) => ({
        set: await flags.halt(reason, by, Math.floor(clock.now())),
        cancelled: 3,
      }),
    });
  });
  afterEach(async () => {
    await flags.close();
    await deleteKeys(redis, prefix);
  });

  void it('records each action with its outcome and the state before', async () => {
    const first = await actions.halt(ALICE, 'checking the feed');
    assert.deepEqual([first.changed, first.outcome], [true, 'halted, 3 orders cancelled']);
    await clock.advance(1_000);
    const second = await actions.halt(SHELL, 'another reason');
    assert.equal(second.changed, false);
    assert.equal(
      second.outcome,
      'already halted by operator:console (alice) for checking the feed since ' +
        '2026-01-05T09:30:00.000Z: not changed, 3 orders cancelled',
    );
    assert.equal((await flags.read()).reason, 'checking the feed', 'the first reason stays');
    const resumed = await actions.resume(SHELL);
    assert.equal(
      resumed.outcome,
      'resumed; was halted by operator:console (alice) for checking the feed since ' +
        '2026-01-05T09:30:00.000Z',
    );
    assert.deepEqual(await actions.resume(ALICE), {
      before: { halted: false },
      changed: false,
      outcome: 'not halted: nothing to resume',
    });
    assert.equal((await actions.pull(ALICE, 'ETHUSD', 'news')).outcome, 'pulled');
    assert.match(
      (await actions.pull(SHELL, 'ETHUSD', 'again')).outcome,
      /^already pulled by operator:console \(alice\) for news since .*: not changed$/,
    );
    assert.match(
      (await actions.restore(SHELL, 'ETHUSD')).outcome,
      /^restored; was pulled by operator:console \(alice\) for news/,
    );
    assert.equal(
      (await actions.restore(SHELL, 'ETHUSD')).outcome,
      'not pulled: nothing to restore',
    );

    const entries = await trail.recent(100);
    assert.deepEqual(
      entries.map((e) => [e.action, e.door, e.actor, e.changed]),
      [
        ['halt', 'console', 'alice', true],
        ['halt', 'cli', 'bob@desk', false],
        ['resume', 'cli', 'bob@desk', true],
        ['resume', 'console', 'alice', false],
        ['pull', 'console', 'alice', true],
        ['pull', 'cli', 'bob@desk', false],
        ['restore', 'cli', 'bob@desk', true],
        ['restore', 'cli', 'bob@desk', false],
      ],
      'oldest first, every action, refused ones included',
    );
    const [halt] = entries;
    assert.deepEqual(
      { ...halt, id: undefined },
      {
        id: undefined,
        tMs: T0,
        actor: 'alice',
        door: 'console',
        remote: '203.0.113.7',
        action: 'halt',
        reason: 'checking the feed',
        changed: true,
        outcome: 'halted, 3 orders cancelled',
      },
    );
    assert.equal(entries[4]?.pair, 'ETHUSD');
  });

  void it("records the supervisor's own halt and resume", async () => {
    await flags.halt('operator first', 'operator:cli', T0);
    await appendAudit(
      { trail, log: silentLog },
      ownEntry('supervisor', T0 + 5, {
        action: 'halt',
        reason: 'exchange emergency: cancel_only',
        changed: false,
        before: flags.current(),
      }),
    );
    const [entry] = await trail.recent(1);
    assert.deepEqual(
      [entry?.door, entry?.actor, entry?.reason, entry?.changed, entry?.outcome],
      [
        'supervisor',
        'supervisor',
        'exchange emergency: cancel_only',
        false,
        'already halted by operator:cli for operator first since 2026-01-05T09:30:00.000Z: not changed',
      ],
    );
  });

  void it(`keeps at least ${AUDIT_KEPT} entries and not many more`, async () => {
    const entry = ownEntry('runner', T0, {
      action: 'halt',
      reason: 'risk',
      changed: true,
      before: { halted: false },
    });
    const total = AUDIT_KEPT + 1_500;
    for (let sent = 0; sent < total; sent += 500) {
      await Promise.all(Array.from({ length: 500 }, () => trail.append(entry)));
    }
    const kept = await redis.xlen(trail.key);
    assert.ok(kept >= AUDIT_KEPT && kept < total, `${kept} kept of ${total}`);
  });

  void it('makerd audit lists the newest entries, newest last, control characters escaped', async () => {
    await actions.halt(
      { name: 'eve\u001b[2J\u001b]0;pwned\u0007', door: 'console', remote: '::1' },
      'a\nb',
    );
    await actions.resume(SHELL);
    const config = join(mkdtempSync(join(tmpdir(), 'makerd-audit-')), 'makerd.yaml');
    writeFileSync(
      config,
      stringify({
        redis: { url: REDIS_URL, prefix },
        pairs: [{ pair: 'XBTUSD', strategy: { name: 'spread' } }],
      }),
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [BIN, 'audit', '--config', config, '--limit', '5'],
      {
        env: { ...process.env, MAKERD_REDIS_URL: '', MAKERD_REDIS_PREFIX: '' },
      },
    );
    assert.equal(
      stdout,
      '2026-01-05T09:30:00.000Z halt by eve\\u001b[2J\\u001b]0;pwned\\u0007 via console from ::1: a\\nb ' +
        '=> halted, 3 orders cancelled\n' +
        '2026-01-05T09:30:00.000Z resume by bob@desk via cli => resumed; was halted by ' +
        'operator:console (eve\\u001b[2J\\u001b]0;pwned\\u0007) for a\\nb since 2026-01-05T09:30:00.000Z\n',
    );
    assert.ok(
      [...stdout].every((c) => c === '\n' || c.charCodeAt(0) >= 0x20),
      'no raw control character',
    );
  });
});
