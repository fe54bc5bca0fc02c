/** One Server-Sent Event: its `event` field ("message" when it has none) and its data lines. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

const EOL = /\r\n|\r|\n/g;

/**
 * Parses text/event-stream as its chunks arrive. The page reads the stream with fetch(), because
 * EventSource cannot send the Authorization header, so it parses the lines itself: a chunk may end
 * anywhere, inside a line or between the CR and LF of one line ending. Only the fields the console
 * uses (`event`, `data`) are kept; comments (`: keep-alive`) and other fields are skipped.
 */
export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  /** The last chunk ended in CR: a LF opening the next one belongs to that line ending. */
  #skipLf = false;

  push(chunk: string): SseEvent[] {
    if (chunk === '') return [];
    const text = this.#skipLf && chunk.startsWith('\n') ? chunk.slice(1) : chunk;
    this.#skipLf = false;
    this.#buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    EOL.lastIndex = 0;
    for (let m = EOL.exec(this.#buffer); m !== null; m = EOL.exec(this.#buffer)) {
      const event = this.#line(this.#buffer.slice(start, m.index));
      if (event !== undefined) events.push(event);
      start = m.index + m[0].length;
      if (m[0] === '\r' && start === this.#buffer.length) this.#skipLf = true;
    }
    this.#buffer = this.#buffer.slice(start);
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const event = {
      event: this.#event === '' ? 'message' : this.#event,
      data: this.#data.join('\n'),
    };
    const any = this.#data.length > 0;
    this.#event = '';
    this.#data = [];
    // As EventSource: a block without data lines dispatches nothing.
    return any ? event : undefined;
  }
}
