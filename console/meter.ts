import { el, setAttr, setText } from './dom.js';
import { percent, type Tone } from './format.js';

/**
 * A labelled bar: how full a counter or limit is, coloured by its tone. A two-sided one (a
 * position against its limit either way) fills from the middle: rightwards long, leftwards short.
 */
export class Meter {
  readonly element: HTMLElement;
  readonly #fill: HTMLElement;
  readonly #mark: HTMLElement;
  readonly #value: HTMLElement;

  constructor(label: string, field: string, sides: 'one' | 'two' = 'one') {
    this.#fill = el('div', { class: 'meter-fill' });
    this.#mark = el('div', { class: 'meter-mark' });
    this.#mark.hidden = true;
    this.#value = el('span', { class: 'meter-value', 'data-field': field });
    this.element = el(
      'div',
      { class: 'meter', 'data-sides': sides },
      el('div', { class: 'meter-label' }, el('span', {}, label), this.#value),
      el('div', { class: 'meter-track' }, this.#fill, this.#mark),
    );
  }

  /**
   * `fraction` of the bar filled (0..1; -1..1 on a two-sided bar); `text` the figures beside the
   * label; `mark` a tick on the track (0..1), where the plan says it should stay below.
   */
  set(fraction: number, text: string, tone: Tone, mark?: { at: number; title: string }): void {
    const two = this.element.dataset.sides === 'two';
    const width = two ? Math.abs(fraction) / 2 : fraction;
    const left = two ? 0.5 + Math.min(0, fraction) / 2 : 0;
    this.#fill.style.width = percent(width).replace(' ', '');
    this.#fill.style.left = percent(left).replace(' ', '');
    setText(this.#value, text);
    setAttr(this.element, 'data-tone', tone);
    setAttr(
      this.element,
      'data-side',
      !two || fraction === 0 ? undefined : fraction < 0 ? 'short' : 'long',
    );
    this.#mark.hidden = mark === undefined;
    if (mark !== undefined) {
      this.#mark.style.left = percent(mark.at).replace(' ', '');
      setAttr(this.#mark, 'title', mark.title);
    }
  }
}
