/**
 * The operator console: the page served by makerd's HTTP endpoint. It opens one stream of events
 * (a `history` and a `state`, then a `patch` of the state each second), draws the deployment and
 * each pair from them, and posts the operator's actions (halt, resume, pull, restore) after a
 * confirmation.
 */
import type { ConsoleHistory, ConsoleSession, ConsoleState } from '../src/console/state.js';
import { applyStatePatch } from '../src/console/state-patch.js';
import { HALT, pull, restore, RESUME, type ActionSpec } from './actions.js';
import { errorText, fetchSession, openStream, post, type ActionResult } from './api.js';
import { AuditList } from './audit-list.js';
import { askToken, confirmAction } from './dialogs.js';
import { el, setAttr, setText } from './dom.js';
import { EventsList } from './events-list.js';
import { clockUtc, formatDuration } from './format.js';
import { Header } from './header.js';
import { PairCard } from './pair-card.js';
import { PairSeries } from './series.js';
import type { SseEvent } from './sse.js';
import { storeToken, storedToken } from './storage.js';
import { Link, type LinkStatus } from './stream.js';

let session: ConsoleSession | undefined;
let state: ConsoleState | undefined;
/** When the newest state arrived, on this device's clock. */
let receivedAt = 0;
let link: LinkStatus = { kind: 'connecting' };
/**
 * A state comes each second: this long without one, the link is taken for lost and the page stops
 * vouching for what it shows (the stream itself is reopened only after longer silence, stream.ts).
 * A second's state late by half a second is not a lost link.
 */
const QUIET_MS = 1_500;
let quietTimer = 0;

const series = new Map<string, PairSeries>();
const cards = new Map<string, PairCard>();

const linkBadge = el('span', { class: 'link', 'data-field': 'link' });
const header = new Header(linkBadge, { halt: () => act(HALT), resume: () => act(RESUME) });
const bannerText = el('span', { 'data-field': 'banner-text' });
const bannerButton = el('button', { type: 'button', class: 'act' });
const banner = el('div', { class: 'banner', role: 'status' }, bannerText, bannerButton);
const pairsBox = el('section', { class: 'pairs', 'data-field': 'pairs' });
const events = new EventsList();
const audit = new AuditList();
const toast = el('div', { class: 'toast', role: 'status', 'data-field': 'toast' });
const footer = el('footer', {}, 'Times in UTC. Figures as the daemon last reported them.');

/** Whether the newest state is current: the link is up and a state came within QUIET_MS. */
function current(): boolean {
  return link.kind === 'live' && (state === undefined || Date.now() - receivedAt < QUIET_MS);
}

/**
 * The daemon's clock now: its last state's time plus what has passed here since, so countdowns
 * tick each second and do not depend on this device's clock agreeing with the daemon's. Without a
 * current state it stays at that state's time: nothing counts down that the page cannot see.
 */
function daemonNow(): number {
  if (state === undefined) return Date.now();
  return current() ? state.atMs + (Date.now() - receivedAt) : state.atMs;
}

/** Asks for confirmation, then sends the action with the session's CSRF token. */
function act(spec: ActionSpec): void {
  confirmAction({
    ...spec,
    run: (input): Promise<ActionResult> =>
      session === undefined
        ? Promise.resolve({ ok: false, error: 'Not connected to makerd yet.' })
        : post(spec.request(input), session),
    unauthorized: () => tokenPrompt(true),
    done: showToast,
  });
}

let toastTimer = 0;
function showToast(message: string): void {
  toast.textContent = message;
  toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (toast.hidden = true), 6000);
}

function tokenPrompt(refused: boolean): void {
  if (refused) storeToken(undefined);
  askToken((token) => {
    storeToken(token);
    stream.start();
  }, refused);
}

function seriesOf(pair: string): PairSeries {
  let s = series.get(pair);
  if (s === undefined) {
    s = new PairSeries();
    series.set(pair, s);
  }
  return s;
}

function onEvent(event: SseEvent): void {
  try {
    if (event.event === 'history') {
      const history = JSON.parse(event.data) as ConsoleHistory;
      for (const p of history.pairs) seriesOf(p.pair).reset(p.points, p.fills);
    } else if (event.event === 'state' || event.event === 'patch') {
      const data: unknown = JSON.parse(event.data);
      if (event.event === 'patch' && state === undefined) return;
      state = (event.event === 'state' ? data : applyStatePatch(state, data)) as ConsoleState;
      receivedAt = Date.now();
      clearTimeout(quietTimer);
      quietTimer = window.setTimeout(render, QUIET_MS);
      for (const p of state.pairs) {
        const s = seriesOf(p.pair);
        if (p.point !== undefined) s.addPoint(p.point);
        s.addFills(p.fills);
      }
      renderPairs(state);
      events.update(state.events);
      audit.update(state.audit);
      render();
    }
  } catch (err) {
    showToast(`An update from makerd could not be read (${event.event}): ${errorText(err)}`);
  }
}

function renderPairs(s: ConsoleState): void {
  const now = s.atMs;
  const wanted = s.pairs.map((p) => p.pair);
  for (const [pair, card] of cards) {
    if (!wanted.includes(pair)) {
      card.element.remove();
      cards.delete(pair);
    }
  }
  s.pairs.forEach((p, i) => {
    let card = cards.get(p.pair);
    if (card === undefined) {
      card = new PairCard(p.pair, seriesOf(p.pair), {
        pull: () => act(pull(p.pair)),
        restore: () => act(restore(p.pair)),
      });
      cards.set(p.pair, card);
    }
    if (pairsBox.children[i] !== card.element)
      pairsBox.insertBefore(card.element, pairsBox.children[i] ?? null);
    card.update(p, now);
  });
  if (s.pairs.length === 0)
    pairsBox.replaceChildren(el('p', { class: 'card note' }, 'No pairs configured.'));
  else pairsBox.querySelector(':scope > p')?.remove();
}

/** The parts that change with the clock as well as with each state: header and link banner. */
function render(): void {
  const now = daemonNow();
  const live = current();
  header.update(state, now, session !== undefined, live);
  if (state !== undefined) {
    document.title = `${state.halt.halted ? 'HALTED · ' : ''}${state.instance} · makerd`;
    document.body.dataset.ready = 'true';
  }
  const quiet = link.kind === 'live' && !live;
  document.body.dataset.link = quiet ? 'quiet' : link.kind;
  setText(
    linkBadge,
    live
      ? 'live'
      : quiet
        ? 'no update'
        : link.kind === 'unauthorized'
          ? 'token needed'
          : link.kind === 'connecting'
            ? 'connecting'
            : 'reconnecting',
  );
  setAttr(linkBadge, 'data-tone', live ? 'ok' : link.kind === 'unauthorized' ? 'bad' : 'warn');
  banner.hidden =
    live || (link.kind === 'connecting' && state === undefined && session === undefined);
  const asOf = state === undefined ? '' : ` Figures below are from ${clockUtc(state.atMs)} UTC.`;
  bannerButton.hidden = link.kind !== 'retrying' && link.kind !== 'unauthorized';
  if (quiet) {
    setText(
      bannerText,
      `No update from makerd for ${formatDuration(Date.now() - receivedAt)}: the link may be lost.${asOf}`,
    );
  } else if (link.kind === 'retrying') {
    const wait = Math.max(0, link.atMs - Date.now());
    setText(
      bannerText,
      `Connection lost: ${link.reason}. Reconnecting in ${formatDuration(wait)}.${asOf}`,
    );
    setText(bannerButton, 'Retry now');
  } else if (link.kind === 'unauthorized') {
    setText(bannerText, `makerd needs its bearer token for this page.${asOf}`);
    setText(bannerButton, 'Enter token');
  } else {
    setText(bannerText, `Connecting to makerd…${asOf}`);
  }
}

bannerButton.addEventListener('click', () => {
  if (link.kind === 'unauthorized') tokenPrompt(false);
  else stream.retryNow();
});

const stream = new Link(
  async (signal) => {
    // Fetched on every connect: a restarted daemon has a new CSRF token.
    session = await fetchSession(signal);
    header.setInstance(session.instance);
    // No token yet is the same as a refused one: ask for it instead of opening the stream.
    if (session.tokenRequired && storedToken() === undefined)
      return new Response(null, { status: 401 });
    return openStream(signal);
  },
  onEvent,
  (status) => {
    const refused = status.kind === 'unauthorized' && storedToken() !== undefined;
    link = status;
    render();
    if (status.kind === 'unauthorized') tokenPrompt(refused);
  },
);

toast.hidden = true;
document.body.append(
  // The halt state, its button and a lost link stay on screen however far the page scrolls.
  el('div', { class: 'sticky' }, header.element, banner),
  header.tiles,
  el('main', {}, pairsBox, audit.element, events.element),
  footer,
  toast,
);
render();
stream.start();
setInterval(render, 1000);
// A phone unlocked or a tab brought back: reconnect now rather than at the end of the backoff.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') stream.retryNow();
});
