import type { ConsoleAuditEntry } from '../src/console/state.js';
import { el, replaceIfChanged } from './dom.js';
import { clockUtc } from './format.js';

/**
 * The audit trail's newest entries, newest first, apart from the warnings: who halted, resumed,
 * pulled or restored, through which door and from where, why, and what came of it.
 */
export class AuditList {
  readonly element: HTMLElement;
  readonly #list = el('ol', { class: 'events' });

  constructor() {
    this.element = el(
      'section',
      { class: 'card events-card', 'data-field': 'audit' },
      el('h2', {}, 'Control actions'),
      this.#list,
    );
  }

  update(entries: readonly ConsoleAuditEntry[]): void {
    replaceIfChanged(this.#list, entries.map((e) => e.id).join(), () =>
      entries.length === 0
        ? [el('li', { class: 'note' }, 'no halt, resume, pull or restore on record')]
        : entries.map((e) =>
            el(
              'li',
              { 'data-action': e.action, 'data-changed': String(e.changed) },
              el('time', { datetime: new Date(e.tMs).toISOString() }, clockUtc(e.tMs)),
              el(
                'span',
                { class: 'badge', 'data-tone': e.changed ? 'info' : 'warn' },
                e.pair === undefined ? e.action : `${e.action} ${e.pair}`,
              ),
              el(
                'span',
                { class: 'source' },
                `${e.actor} via ${e.door}${e.remote === undefined ? '' : ` from ${e.remote}`}`,
              ),
              el(
                'span',
                { class: 'message' },
                `${e.reason === undefined ? '' : `${e.reason}: `}${e.outcome}`,
              ),
            ),
          ),
    );
  }
}
