import { el, setAttr, setText } from './dom.js';
import { percent, type Tone } from './format.js';

/** A labelled bar: how full a counter or limit is, coloured by its tone. */
export class Meter {
  readonly element: HTMLElement;
  readonly #fill: HTMLElement;
  readonly #value: HTMLElement;

  constructor(label: string, field: string) {
    this.#fill = el('div', { class: 'meter-fill' });
    this.#value = el('span', { class: 'meter-value', 'data-field': field });
    this.element = el(
      'div',
      { class: 'meter' },
      el('div', { class: 'meter-label' }, el('span', {}, label), this.#value),
      el('div', { class: 'meter-track' }, this.#fill),
    );
  }

  /** `fraction` of the bar filled (0..1); `text` the figures beside the label. */
  set(fraction: number, text: string, tone: Tone): void {
    this.#fill.style.width = percent(fraction).replace(' ', '');
    setText(this.#value, text);
    setAttr(this.element, 'data-tone', tone);
  }
}
