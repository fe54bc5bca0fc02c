import type { ConsoleState } from '../src/console/state.js';
import { el, replaceIfChanged, setAttr, setText } from './dom.js';
import {
  clockUtc,
  deadManTone,
  formatCountdown,
  formatDuration,
  formatAmount,
  formatLevel,
  share,
  shareTone,
  signOf,
  sumDecimals,
  windowRelation,
  withSign,
  windowSpan,
  type Tone,
} from './format.js';
import { Meter } from './meter.js';

const ROLES = ['runner', 'executor', 'supervisor'] as const;

/**
 * The deployment at a glance: instance, halt state (big, coloured) and the Halt / Resume button
 * (`element`, which stays on screen), then tiles: roles alive, the dead-man countdown, the
 * exchange and its next maintenance, risk, the key's REST counter and the PnL of all pairs.
 * Without a live link it says what it last knew, greyed, and counts nothing down.
 */
export class Header {
  readonly element: HTMLElement;
  readonly tiles: HTMLElement;
  readonly #instance = el('span', { class: 'instance', 'data-field': 'instance' });
  readonly #button = el('button', { type: 'button', class: 'act', 'data-action': 'halt' }, 'Halt…');
  readonly #band = el('div', { class: 'band', 'data-field': 'halt-band' });
  readonly #haltWord = el('strong', { class: 'band-word', 'data-field': 'halt' });
  readonly #haltDetail = el('span', { class: 'band-detail', 'data-field': 'halt-detail' });
  readonly #roles = el('dd', { 'data-field': 'roles' });
  readonly #deadMan = el('dd', { 'data-field': 'dead-man' });
  readonly #exchange = el('dd', { 'data-field': 'exchange' });
  readonly #maintenance = el('span', { 'data-field': 'maintenance' });
  readonly #maintenanceSpan = el('small', { class: 'sub', 'data-field': 'maintenance-span' });
  readonly #risk = el('dd', { 'data-field': 'risk' });
  readonly #rest = new Meter('REST counter', 'rest');
  readonly #pnl = el('dd', { 'data-field': 'pnl-all' });
  readonly #pnlSince = el('small', { class: 'sub', 'data-field': 'pnl-since' });
  #halted = false;

  constructor(link: HTMLElement, actions: { halt(): void; resume(): void }) {
    this.#button.disabled = true;
    this.#button.addEventListener('click', () =>
      this.#halted ? actions.resume() : actions.halt(),
    );
    this.#band.append(this.#haltWord, this.#haltDetail);
    const tile = (label: string, value: HTMLElement): HTMLElement =>
      el('div', { class: 'tile' }, el('dt', {}, label), value);
    this.element = el(
      'header',
      { class: 'top' },
      el(
        'div',
        { class: 'bar' },
        el('div', { class: 'brand' }, el('span', { class: 'logo' }, 'makerd'), this.#instance),
        link,
        this.#button,
      ),
      this.#band,
    );
    this.tiles = el(
      'section',
      { class: 'overview' },
      el(
        'dl',
        { class: 'tiles' },
        tile('Roles', this.#roles),
        tile('Dead-man timer', this.#deadMan),
        tile('Exchange', this.#exchange),
        tile('Next maintenance', el('dd', {}, this.#maintenance, this.#maintenanceSpan)),
        tile('Risk', this.#risk),
        el(
          'div',
          { class: 'tile' },
          el('dt', {}, 'REST counter'),
          el('dd', {}, this.#rest.element),
        ),
        el(
          'div',
          { class: 'tile' },
          el('dt', {}, 'PnL, all pairs'),
          el('dd', {}, this.#pnl, this.#pnlSince),
        ),
      ),
    );
  }

  /** Names the instance before the first state arrives (from the session). */
  setInstance(instance: string): void {
    setText(this.#instance, instance);
  }

  /**
   * `canAct`: the page has a session (its CSRF token) to send an action with. `live`: the state
   * is current; without it the state is the last known, shown greyed and not counted down.
   */
  update(state: ConsoleState | undefined, nowMs: number, canAct: boolean, live: boolean): void {
    this.#button.disabled = !canAct || state === undefined;
    if (state === undefined) {
      setText(this.#haltWord, '…');
      setText(this.#haltDetail, 'waiting for the first update');
      setAttr(this.#band, 'data-tone', 'off');
      return;
    }
    this.setInstance(state.instance);
    const { halt, supervisor } = state;
    this.#halted = halt.halted;
    setText(this.#button, halt.halted ? 'Resume…' : 'Halt…');
    setAttr(this.#button, 'data-action', halt.halted ? 'resume' : 'halt');
    setAttr(this.#button, 'class', halt.halted ? 'act' : 'act danger');

    const posture = supervisor?.posture ?? 'normal';
    const tone = halt.halted ? 'bad' : posture === 'normal' ? 'ok' : 'warn';
    setAttr(this.#band, 'data-tone', live ? tone : 'off');
    setText(this.#haltWord, halt.halted ? 'HALTED' : 'RUNNING');
    const detail = halt.halted ? haltDetail(state, nowMs) : runningDetail(state);
    setText(
      this.#haltDetail,
      live ? detail : `last known at ${clockUtc(state.atMs)} UTC, no link since · ${detail}`,
    );
    this.#updatePnl(state, nowMs);

    replaceIfChanged(this.#roles, ROLES.map((r) => `${r}:${state.roles[r].alive}`).join(), () =>
      ROLES.map((role) =>
        el(
          'span',
          { class: 'chip', 'data-role': role, 'data-tone': state.roles[role].alive ? 'ok' : 'bad' },
          role,
        ),
      ),
    );
    for (const role of ROLES) {
      const chip = this.#roles.querySelector(`[data-role="${role}"]`);
      const age = state.roles[role].beatAgeMs;
      const beat = age === undefined ? 'no beat' : `last beat ${formatDuration(age)} ago`;
      if (chip !== null)
        setAttr(chip, 'title', `${state.roles[role].alive ? 'alive' : 'down'}, ${beat}`);
    }

    if (supervisor === undefined) {
      this.#tone(this.#deadMan, 'off — no supervisor', 'warn');
      this.#tone(this.#exchange, 'unknown — no supervisor', 'warn');
      this.#tone(this.#maintenance, '—', 'off');
      setText(this.#maintenanceSpan, '');
      this.#tone(this.#risk, 'unchecked', 'warn');
      this.#rest.set(0, '—', 'ok');
      return;
    }
    const trigger = supervisor.deadManTriggerAtMs;
    if (!live) this.#tone(this.#deadMan, 'unknown: no link', 'off');
    else if (trigger === undefined) this.#tone(this.#deadMan, 'not armed', 'off');
    else if (trigger <= nowMs)
      this.#tone(this.#deadMan, `fired ${formatDuration(nowMs - trigger)} ago`, 'bad');
    else this.#tone(this.#deadMan, formatCountdown(trigger - nowMs), deadManTone(trigger - nowMs));

    const postureText = supervisor.posture === 'normal' ? '' : ` · posture ${supervisor.posture}`;
    this.#tone(
      this.#exchange,
      `${supervisor.exchange}${postureText}`,
      supervisor.exchange === 'online' ? 'ok' : 'warn',
    );
    const next = supervisor.nextMaintenance;
    if (next === undefined) {
      this.#tone(this.#maintenance, 'none announced', 'off');
      setText(this.#maintenanceSpan, '');
    } else {
      const soon = next.startMs - nowMs < 3_600_000;
      this.#tone(
        this.#maintenance,
        windowRelation(next.startMs, next.endMs, nowMs),
        soon ? 'warn' : 'off',
      );
      setText(
        this.#maintenanceSpan,
        `${windowSpan(next.startMs, next.endMs, nowMs)} · ${next.title}`,
      );
    }
    const risk = supervisor.risk;
    this.#tone(this.#risk, risk, risk === 'ok' ? 'ok' : risk === 'unchecked' ? 'warn' : 'bad');
    const rest = supervisor.rest;
    if (rest === undefined) this.#rest.set(0, 'not tracked', 'ok');
    else {
      const used = share(rest.level, rest.max);
      this.#rest.set(used, formatLevel(rest.level, rest.max), shareTone(used));
    }
  }

  /** The PnL of every pair summed per quote currency, and since when it counts. */
  #updatePnl(state: ConsoleState, nowMs: number): void {
    const byQuote = new Map<string, string[]>();
    for (const p of state.pairs) {
      if (p.pnl !== undefined) byQuote.set(p.quote, [...(byQuote.get(p.quote) ?? []), p.pnl.total]);
    }
    const totals = [...byQuote].map(([quote, values]) => ({ quote, total: sumDecimals(values) }));
    replaceIfChanged(this.#pnl, JSON.stringify(totals), () =>
      totals.length === 0
        ? ['no PnL yet']
        : totals.map(({ quote, total }) =>
            el(
              'span',
              {
                class: 'amount',
                'data-quote': quote,
                'data-sign': String(signOf(total)),
                title: `${total} ${quote}`,
              },
              `${withSign(formatAmount(total, 2, 6))} ${quote}`,
            ),
          ),
    );
    const since = state.pnlSinceMs;
    setText(
      this.#pnlSince,
      since === undefined
        ? 'no runner reporting'
        : `since ${clockUtc(since)} UTC (runner start, ${formatDuration(nowMs - since)})`,
    );
  }

  #tone(node: HTMLElement, text: string, tone: Tone | 'off'): void {
    setText(node, text);
    setAttr(node, 'data-tone', tone);
  }
}

function haltDetail(state: ConsoleState, nowMs: number): string {
  const { reason, by, sinceMs } = state.halt;
  const parts = [reason ?? 'no reason given'];
  if (by !== undefined) parts.push(`by ${by}`);
  if (sinceMs !== undefined) {
    parts.push(`since ${clockUtc(sinceMs)} UTC (${formatDuration(nowMs - sinceMs)} ago)`);
  }
  return parts.join(' · ');
}

function runningDetail(state: ConsoleState): string {
  const pulled = state.pairs.filter((p) => p.pulled).length;
  const pairs = `${state.pairs.length} pair${state.pairs.length === 1 ? '' : 's'}`;
  const posture = state.supervisor?.posture;
  return [
    pulled > 0 ? `${pairs}, ${pulled} pulled` : pairs,
    posture !== undefined && posture !== 'normal' ? `posture ${posture}` : undefined,
  ]
    .filter((p) => p !== undefined)
    .join(' · ');
}
