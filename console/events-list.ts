import type { ConsoleEvent } from '../src/console/state.js';
import { el, replaceIfChanged } from './dom.js';
import { clockUtc } from './format.js';

/** Recent warnings, errors and operator actions of every process, newest first. */
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
        : events.map((e) =>
            el(
              'li',
              { 'data-level': e.level },
              el('time', { datetime: new Date(e.tMs).toISOString() }, clockUtc(e.tMs)),
              el('span', { class: 'badge', 'data-tone': TONES[e.level] }, e.level),
              el('span', { class: 'source' }, e.source),
              el('span', { class: 'message' }, e.message),
            ),
          ),
    );
  }
}

const TONES = { warn: 'warn', error: 'bad', audit: 'info' } as const;
