import uPlot from 'uplot';
import { el } from './dom.js';
import { clockUtc } from './format.js';
import { WINDOW_MS, type PairSeries } from './series.js';

/** The shortest window drawn: a run's first minutes still read as a line, not a stroke. */
const MIN_SPAN_S = 300;

/** One set of colours for the lines, the fill markers and the legend under the chart. */
const COLOURS = { mid: '#64748b', bid: '#15803d', ask: '#c2410c', grid: '#e5e9ef' };
const HEIGHT = 200;
const AXIS_FONT = '11px system-ui, sans-serif';

/**
 * The pair's last hour: the book's mid, our best bid and ask (stepped: a quote holds its price
 * until replaced), and a triangle per fill at its time and price (up: we bought, down: we sold).
 * The figure records how many points and fill markers it drew (data-points, data-fills-drawn).
 */
export class PriceChart {
  readonly element: HTMLElement;
  readonly #host: HTMLElement;
  readonly #series: PairSeries;
  #plot: uPlot | undefined;
  #nowSec = 0;
  /** The oldest point's time: a run younger than the window is drawn across the width. */
  #firstSec: number | undefined;

  constructor(series: PairSeries) {
    this.#series = series;
    this.#host = el('div', { class: 'plot' });
    this.element = el(
      'figure',
      { class: 'chart', 'data-chart': 'price' },
      this.#host,
      el(
        'figcaption',
        { class: 'legend' },
        swatch('line', COLOURS.mid, 'mid'),
        swatch('line', COLOURS.bid, 'our bid'),
        swatch('line', COLOURS.ask, 'our ask'),
        swatch('up', COLOURS.bid, 'bought'),
        swatch('down', COLOURS.ask, 'sold'),
      ),
    );
    // uPlot needs a width: the chart is made once the card is in the page, and follows its size.
    new ResizeObserver(() => this.#resize()).observe(this.#host);
  }

  /** The window's start: an hour back, or the oldest point (at least MIN_SPAN_S back). */
  #fromSec(): number {
    const hourAgo = this.#nowSec - WINDOW_MS / 1000;
    const first = this.#firstSec ?? hourAgo;
    return Math.max(hourAgo, Math.min(first, this.#nowSec - MIN_SPAN_S));
  }

  /** Redraws with the series as it is now, the window ending at the daemon's `nowMs`. */
  update(nowMs: number): void {
    this.#nowSec = nowMs / 1000;
    const s = this.#series;
    this.#firstSec = s.t[0];
    this.element.dataset.points = String(s.t.length);
    if (this.#plot === undefined) this.#resize();
    this.#plot?.setData([s.t, s.mid, s.bid, s.ask]);
  }

  #resize(): void {
    const width = this.#host.clientWidth;
    if (width === 0) return;
    if (this.#plot === undefined) this.#plot = this.#create(width);
    else if (this.#plot.width !== width) this.#plot.setSize({ width, height: HEIGHT });
  }

  #create(width: number): uPlot {
    const s = this.#series;
    const stepped = uPlot.paths.stepped?.({ align: 1 });
    const quote = (label: string, stroke: string): uPlot.Series => ({
      label,
      stroke,
      width: 1.5,
      ...(stepped === undefined ? {} : { paths: stepped }),
    });
    const axis = (extra: uPlot.Axis): uPlot.Axis => ({
      font: AXIS_FONT,
      stroke: '#5f6b7a',
      grid: { stroke: COLOURS.grid, width: 1 },
      ticks: { stroke: COLOURS.grid, width: 1, size: 4 },
      ...extra,
    });
    return new uPlot(
      {
        width,
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        legend: { show: false },
        cursor: { show: false },
        // Room on the right for the last time label, centred on the plot's edge.
        padding: [8, 20, 0, 0],
        scales: {
          x: { time: true, range: () => [this.#fromSec(), this.#nowSec] },
        },
        axes: [
          // 24-hour UTC times, as everywhere on the page.
          axis({
            space: 60,
            size: 32,
            values: (_u, splits) => splits.map((v) => clockUtc(v * 1000).slice(0, 5)),
          }),
          axis({
            // Wide enough for the longest price label (uPlot's default cuts 5-digit prices).
            size: (_u, values) => 14 + 7 * Math.max(4, ...(values ?? []).map((v) => v.length)),
          }),
        ],
        series: [
          {},
          { label: 'mid', stroke: COLOURS.mid, width: 1.25 },
          quote('our bid', COLOURS.bid),
          quote('our ask', COLOURS.ask),
        ],
        hooks: { draw: [(u) => this.#drawFills(u)] },
      },
      [s.t, s.mid, s.bid, s.ask],
      this.#host,
    );
  }

  #drawFills(u: uPlot): void {
    const { ctx } = u;
    const r = 5 * devicePixelRatio;
    const { left, top, width, height } = u.bbox;
    let drawn = 0;
    ctx.save();
    ctx.lineWidth = devicePixelRatio;
    ctx.strokeStyle = '#ffffff';
    for (const fill of this.#series.fills()) {
      const x = u.valToPos(fill.tMs / 1000, 'x', true);
      const y = u.valToPos(Number(fill.price), 'y', true);
      if (!(x >= left && x <= left + width && y >= top && y <= top + height)) continue;
      const up = fill.side === 'buy' ? 1 : -1;
      ctx.beginPath();
      ctx.moveTo(x, y - up * r);
      ctx.lineTo(x + r, y + up * r * 0.8);
      ctx.lineTo(x - r, y + up * r * 0.8);
      ctx.closePath();
      ctx.fillStyle = fill.side === 'buy' ? COLOURS.bid : COLOURS.ask;
      ctx.fill();
      ctx.stroke();
      drawn++;
    }
    ctx.restore();
    this.element.dataset.fillsDrawn = String(drawn);
  }
}

function swatch(shape: 'line' | 'up' | 'down', colour: string, label: string): HTMLElement {
  const mark = el('i', { class: `swatch ${shape}` });
  mark.style.color = colour;
  return el('span', {}, mark, label);
}
