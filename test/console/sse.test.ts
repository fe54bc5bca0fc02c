/**
 * The console page reads its event stream with fetch() and parses text/event-stream itself: the
 * events must come out whole however the network cuts the bytes into chunks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reconnectDelayMs } from '../../console/retry.js';
import { SseParser, type SseEvent } from '../../console/sse.js';

const STREAM =
  ': connected\n\n' +
  'event: history\ndata: {"pairs":[]}\n\n' +
  'event: state\r\ndata: {"atMs":1,\r\ndata: "instance":"a"}\r\n\r\n' +
  'data:no space\rid: 7\rretry: 100\r\r' +
  'event: state\ndata: {"atMs":2}\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'history', data: '{"pairs":[]}' },
  { event: 'state', data: '{"atMs":1,\n"instance":"a"}' },
  { event: 'message', data: 'no space' },
  { event: 'state', data: '{"atMs":2}' },
];

test('events come out whole with their names, data lines joined, comments and other fields skipped', () => {
  assert.deepEqual(new SseParser().push(STREAM), EXPECTED);
});

test('the same events whatever two chunks the stream arrives in, a CR and its LF split included', () => {
  for (let cut = 0; cut <= STREAM.length; cut++) {
    const parser = new SseParser();
    const events = [...parser.push(STREAM.slice(0, cut)), ...parser.push(STREAM.slice(cut))];
    assert.deepEqual(
      events,
      EXPECTED,
      `cut at ${cut}: ${JSON.stringify(STREAM.slice(cut - 2, cut + 2))}`,
    );
  }
});

test('the same events when every character arrives alone', () => {
  const parser = new SseParser();
  assert.deepEqual(
    [...STREAM].flatMap((c) => parser.push(c)),
    EXPECTED,
  );
});

test('an event is handed on only once its blank line has come', () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push('event: state\ndata: {"atMs":3}\n'), []);
  assert.deepEqual(parser.push('\n'), [{ event: 'state', data: '{"atMs":3}' }]);
});

test('a block without data dispatches nothing and does not name the next event', () => {
  const parser = new SseParser();
  assert.deepEqual(parser.push('event: history\n\ndata: x\n\n'), [{ event: 'message', data: 'x' }]);
});

test('reconnecting waits 1 s, then doubles up to 30 s, each spread by at most 20 %', () => {
  const middle = (): number => 0.5;
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map((n) => reconnectDelayMs(n, middle)),
    [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000],
  );
  assert.equal(
    reconnectDelayMs(1, () => 0),
    800,
  );
  assert.equal(
    reconnectDelayMs(6, () => 1),
    36_000,
  );
});
