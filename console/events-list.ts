import type { ConsoleEvent } from '../src/console/state.js';
import { el, replaceIfChanged } from './dom.js';
import { clockUtc } from './format.js';

/**
 * Recent warnings, errors and operator actions of every process, newest first: each with the pair
 * it concerns, the call and its cause (the exchange's error text) when the log line named them.
 * The same event again right after itself is one row with a count and the span it covers.
 */
export class EventsList {
  readonly element: HTMLElement;
  readonly #list = el('ol', { class: 'events' });

  constructor() {
    this.element = el(
      'section',
      { class: 'card events-card', 'data-field': 'events' },
      el('h2', {}, 'Recent events'),
      this.#list,
    );
  }

  update(events: readonly ConsoleEvent[]): void {
    replaceIfChanged(this.#list, JSON.stringify(events), () =>
      events.length === 0
        ? [el('li', { class: 'note' }, 'nothing to report')]
        : runs(events).map(({ event: e, count, oldestMs }) =>
            el(
              'li',
              { 'data-level': e.level },
              el(
                'time',
                { datetime: new Date(e.tMs).toISOString() },
                count > 1 ? `${clockUtc(oldestMs)}–${clockUtc(e.tMs)}` : clockUtc(e.tMs),
              ),
              el('span', { class: 'badge', 'data-tone': TONES[e.level] }, e.level),
              el('span', { class: 'source' }, e.source),
              count > 1 ? el('span', { class: 'count', 'data-field': 'count' }, `×${count}`) : null,
              el(
                'span',
                { class: 'message' },
                e.message,
                e.pair === undefined ? null : el('span', { class: 'pair' }, e.pair),
                e.action === undefined ? null : el('code', { class: 'call' }, e.action),
                e.reason === undefined ? null : el('span', { class: 'reason' }, e.reason),
              ),
            ),
          ),
    );
  }
}

const TONES = { warn: 'warn', error: 'bad', audit: 'info' } as const;

/** Events in a row that differ only in their time, as one run (newest first). */
function runs(
  events: readonly ConsoleEvent[],
): { event: ConsoleEvent; count: number; oldestMs: number }[] {
  const out: { event: ConsoleEvent; count: number; oldestMs: number }[] = [];
  const same = (a: ConsoleEvent, b: ConsoleEvent): boolean =>
    JSON.stringify({ ...a, tMs: 0 }) === JSON.stringify({ ...b, tMs: 0 });
  for (const event of events) {
    const last = out.at(-1);
    if (last !== undefined && same(last.event, event)) {
      last.count += 1;
      last.oldestMs = event.tMs;
    } else out.push({ event, count: 1, oldestMs: event.tMs });
  }
  return out;
}
