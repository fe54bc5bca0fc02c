import type { ConsoleOrder, ConsolePair, ConsoleQuoting } from '../src/console/state.js';
import { PriceChart } from './chart.js';
import { el, replaceIfChanged, setAttr, setText, type Child } from './dom.js';
import {
  ageTone,
  formatAmount,
  formatBps,
  formatDuration,
  formatLevel,
  negate,
  ratecountTone,
  share,
  shareTone,
  signedShare,
  signOf,
  spreadBps,
  withSign,
} from './format.js';
import { Meter } from './meter.js';
import type { PairSeries } from './series.js';

/**
 * One pair: its mode and Pull / Restore button, the book against our quotes, the hour chart, our
 * orders by level, inventory against its limit, the PnL split and markout, the ratecount and the
 * age of each market-data source. Built once; update() changes only what moved.
 */
export class PairCard {
  readonly element: HTMLElement;
  readonly #chart: PriceChart;
  readonly #button = el('button', { type: 'button', class: 'act', 'data-action': 'pull' }, 'Pull…');
  readonly #mode = el('span', { class: 'badge', 'data-field': 'mode' });
  readonly #executor = el('span', { class: 'badge', 'data-field': 'executor' });
  readonly #reason = el('p', { class: 'mode-reason', 'data-field': 'mode-reason' });
  readonly #bid = figure('bid');
  readonly #mid = figure('mid');
  readonly #ask = figure('ask');
  readonly #spread = figure('spread');
  readonly #orders = el('tbody', { 'data-field': 'orders' });
  readonly #inventory = new Meter('Base held', 'inventory-base', 'two');
  readonly #quoteHeld = el('p', { class: 'note', 'data-field': 'inventory-quote' });
  readonly #pnl = el('dl', { class: 'pnl' });
  readonly #pnlUnit = el('span', { class: 'unit' });
  readonly #quoting = el('dl', { class: 'pnl', 'data-field': 'quoting' });
  readonly #ratecount = new Meter('Ratecount', 'ratecount');
  readonly #ages = el('div', { class: 'ages', 'data-field': 'data-ages' });
  #pulled = false;

  constructor(pair: string, series: PairSeries, actions: { pull(): void; restore(): void }) {
    this.#chart = new PriceChart(series);
    this.#button.addEventListener('click', () =>
      this.#pulled ? actions.restore() : actions.pull(),
    );
    const section = (title: Child[], ...body: Child[]): HTMLElement =>
      el('section', { class: 'part' }, el('h3', {}, ...title), ...body);
    this.element = el(
      'article',
      { class: 'card pair', 'data-pair': pair },
      el(
        'div',
        { class: 'card-head' },
        el('h2', {}, pair),
        el('div', { class: 'badges' }, this.#mode, this.#executor),
        this.#button,
      ),
      this.#reason,
      el('div', { class: 'book' }, this.#bid.box, this.#mid.box, this.#ask.box, this.#spread.box),
      this.#chart.element,
      el(
        'div',
        { class: 'parts' },
        section(
          ['Our orders'],
          el(
            'table',
            { class: 'orders' },
            el(
              'thead',
              {},
              el(
                'tr',
                {},
                el('th', {}, 'Side'),
                el(
                  'th',
                  { title: 'Price levels from the best on its side (0: at the top)' },
                  'Lvl',
                ),
                el('th', { class: 'num' }, 'Price'),
                el('th', { class: 'num' }, 'Volume'),
                el(
                  'th',
                  {
                    class: 'num',
                    title:
                      'Volume resting ahead of ours at its price: exact from Level3, else estimated from Depth and Trades (~)',
                  },
                  'Ahead',
                ),
              ),
            ),
            this.#orders,
          ),
        ),
        section(['PnL ', this.#pnlUnit], this.#pnl),
        section(['Quoting'], this.#quoting),
        section(['Inventory'], this.#inventory.element, this.#quoteHeld),
        section(['Order entry and data'], this.#ratecount.element, this.#ages),
      ),
    );
  }

  update(p: ConsolePair, nowMs: number): void {
    this.#pulled = p.pulled;
    setText(this.#button, p.pulled ? 'Restore…' : 'Pull…');
    setAttr(this.#button, 'data-action', p.pulled ? 'restore' : 'pull');
    setAttr(this.element, 'data-pulled', String(p.pulled));

    const mode = p.pulled ? 'pulled' : (p.mode ?? 'unknown');
    setText(this.#mode, mode);
    setAttr(this.#mode, 'data-tone', p.pulled ? 'bad' : mode === 'online' ? 'ok' : 'warn');
    setText(this.#executor, p.executor ? 'executor' : 'no executor');
    setAttr(this.#executor, 'data-tone', p.executor ? 'ok' : 'bad');
    setText(this.#reason, p.modeReason ?? '');
    this.#reason.hidden = p.modeReason === undefined || p.modeReason === '';

    this.#bid.set(p.book?.bid);
    this.#mid.set(p.book?.mid);
    this.#ask.set(p.book?.ask);
    const bps =
      p.book?.bid !== undefined && p.book.ask !== undefined
        ? spreadBps(p.book.bid, p.book.ask)
        : undefined;
    this.#spread.set(bps === undefined ? undefined : `${bps.toFixed(1)} bps`);

    replaceIfChanged(this.#orders, JSON.stringify(p.orders), () => orderRows(p.orders));
    this.#updateInventory(p);
    this.#updatePnl(p);
    replaceIfChanged(this.#quoting, JSON.stringify(p.quoting ?? null), () =>
      quotingRows(p.quoting),
    );

    const { level, max, planned } = p.ratecount;
    this.#ratecount.set(
      share(level, max),
      formatLevel(level, max),
      ratecountTone(level, max, planned),
      planned === undefined
        ? undefined
        : {
            at: share(planned, max),
            title: `the executor plans up to ${planned}; above it the headroom is in use`,
          },
    );
    replaceIfChanged(this.#ages, JSON.stringify(p.dataAges), () =>
      p.dataAges.length === 0
        ? [el('span', { class: 'note' }, 'no market data yet')]
        : p.dataAges.map((a) =>
            el(
              'span',
              {
                class: 'chip',
                'data-source': a.source,
                'data-tone': ageTone(a.ageMs, a.staleAfterMs),
                ...(a.staleAfterMs === undefined
                  ? {}
                  : { title: `stale after ${formatDuration(a.staleAfterMs)}` }),
              },
              `${a.source} ${formatDuration(a.ageMs)}`,
            ),
          ),
    );
    this.#chart.update(nowMs);
  }

  #updateInventory(p: ConsolePair): void {
    const { base, quote, maxBase } = p.inventory;
    // A short position (sold more than bought since the state began) is drawn leftwards.
    const short = signOf(base) < 0 ? ' · short' : '';
    const held = `${withSign(formatAmount(base)).replace(/^\+/, '')} ${p.base}`;
    if (maxBase === undefined) {
      this.#inventory.set(0, `${held} · no limit set${short}`, 'ok');
    } else {
      const used = signedShare(Number(base), Number(maxBase));
      const text = `${held} / ${formatAmount(maxBase)}${short}`;
      this.#inventory.set(used, text, shareTone(Math.abs(used)));
    }
    setText(this.#quoteHeld, `${formatAmount(quote, 2, 6)} ${p.quote} held`);
  }

  #updatePnl(p: ConsolePair): void {
    setText(this.#pnlUnit, p.quote);
    const pnl = p.pnl;
    const key = JSON.stringify(pnl ?? null);
    replaceIfChanged(this.#pnl, key, () => {
      if (pnl === undefined)
        return [el('p', { class: 'note' }, 'no PnL yet: the runner has not reported')];
      const amount = (field: string, label: string, value: string, strong = false): Child[] => [
        el('dt', {}, label),
        el(
          'dd',
          {
            'data-field': `pnl-${field}`,
            'data-sign': String(signOf(value)),
            title: `${value} ${p.quote}`,
            class: strong ? 'total' : '',
          },
          withSign(formatAmount(value, 2, 6)),
        ),
      ];
      const markout = pnl.markout10sBps;
      return [
        ...amount('total', 'Total', pnl.total, true),
        ...amount('spread', 'Spread', pnl.spread),
        ...amount('inventory', 'Inventory', pnl.inventory),
        ...amount('fees', 'Fees', negate(pnl.fees)),
        el('dt', {}, 'Fills'),
        el('dd', { 'data-field': 'pnl-fills' }, String(pnl.fills)),
        el(
          'dt',
          {
            title: 'Volume-weighted 10 s markout of our fills (positive: the market moved our way)',
          },
          'Markout 10 s',
        ),
        el(
          'dd',
          {
            'data-field': 'markout',
            'data-sign': markout === undefined ? '0' : String(Math.sign(markout)),
          },
          markout === undefined ? '—' : formatBps(markout),
        ),
      ];
    });
  }
}

/** A labelled figure of the book row. */
function figure(field: string): { box: HTMLElement; set(value: string | undefined): void } {
  const value = el('span', { class: 'v', 'data-field': field });
  return {
    box: el('div', { class: 'fig' }, el('span', { class: 'k' }, field), value),
    set: (text) => setText(value, text ?? '—'),
  };
}

/** Our orders as a ladder: asks from the farthest down to the best, then bids from the best. */
function orderRows(orders: readonly ConsoleOrder[]): Child[] {
  if (orders.length === 0) {
    return [el('tr', {}, el('td', { colspan: '5', class: 'note' }, 'no resting orders'))];
  }
  const asks = orders.filter((o) => o.side === 'sell').reverse();
  const bids = orders.filter((o) => o.side === 'buy');
  return [...asks, ...bids].map((o) =>
    el(
      'tr',
      { 'data-side': o.side },
      el('td', { class: 'side' }, o.side),
      el('td', {}, o.level === undefined ? '—' : String(o.level)),
      el('td', { class: 'num' }, o.price),
      el('td', { class: 'num' }, o.volume),
      o.queueAhead === undefined
        ? el('td', { class: 'num unknown', title: 'not known yet' }, '—')
        : o.queueSource === 'depth'
          ? el(
              'td',
              {
                class: 'num',
                'data-queue': 'estimated',
                title: `estimated from Depth and Trades (${o.queueRule ?? '?'} rule)`,
              },
              `~${o.queueAhead}`,
            )
          : el('td', { class: 'num', 'data-queue': 'exact', title: 'Level3, exact' }, o.queueAhead),
    ),
  );
}

/** The fees, the half-spread floor with its parts, and the strategy's model figures. */
function quotingRows(q: ConsoleQuoting | undefined): Child[] {
  if (q === undefined) return [el('p', { class: 'note' }, 'not reported yet')];
  const row = (field: string, label: string, value: string, title?: string): Child[] => [
    el('dt', title === undefined ? {} : { title }, label),
    el('dd', { 'data-field': field }, value),
  ];
  // Costs, not gains: no sign.
  const bps = (v: string): string => `${Number(v).toFixed(1)} bps`;
  const fees = `${bps(q.makerFeeBps)} / ${bps(q.takerFeeBps)}`;
  const rows: Child[] = [
    ...row(
      'fees',
      'Fees maker / taker',
      fees,
      q.feeSource === 'trade-volume' ? "the key's TradeVolume" : "the pair's fee ladder",
    ),
  ];
  const f = q.floor;
  if (f !== undefined) {
    rows.push(
      ...row(
        'floor',
        'Half-spread floor',
        f.enabled ? bps(f.halfSpreadBps) : 'off',
        'No quote is nearer the mid than this: maker fee + adverse selection + edge',
      ),
      ...row(
        'floor-adverse',
        'Adverse selection',
        `${bps(f.adverseBps)} (${q.adverseFills} fills)`,
        'How far the mid moved against our newest fills within 10 s',
      ),
      ...row('floor-edge', 'Edge kept', bps(f.minEdgeBps)),
    );
  }
  for (const [name, value] of Object.entries(q.model ?? {})) {
    const text = typeof value === 'number' ? Number(value.toPrecision(4)).toString() : value;
    rows.push(...row(`model-${name}`, name, text, "the strategy's model"));
  }
  return rows;
}
