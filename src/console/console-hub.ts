import type { ServerResponse } from 'node:http';
import { PacedLoop, errorMessage, type Clock, type Log } from '../core/index.js';
import type { RouteAnswer } from '../obs/index.js';
import type { ConsoleHistory, ConsoleState } from './state.js';
import { statePatch } from './state-patch.js';

/** How often open pages get the deployment's state when nothing says it changed... */
export const STATE_EVERY_MS = 1_000;
/**
 * ...and how soon after the last one when something did (changed()): a burst of changes (a halt
 * cancelling every order, pair by pair) is one read and one patch, not one each.
 */
export const CHANGED_SOONEST_MS = 200;
/** A page whose connection has taken nothing for this long is dropped (its browser reconnects). */
export const STUCK_AFTER_MS = 30_000;
/** ...and so is one with more than this queued for it (one first history and state fit). */
export const MAX_QUEUED_BYTES = 1024 * 1024;

export interface ConsoleHubParts {
  readonly state: () => Promise<ConsoleState>;
  readonly history: () => Promise<ConsoleHistory>;
  readonly clock: Clock;
  readonly log: Log;
  /** Most streams open at once (http.max_streams); one more is refused. */
  readonly maxStreams: number;
}

/** One open page. */
interface Page {
  readonly res: ServerResponse;
  /** The state it was last sent, which its next patch starts from; undefined before its first. */
  sent: ConsoleState | undefined;
  /** Since when its connection has refused more (write() said false); undefined: it takes more. */
  blockedSinceMs: number | undefined;
}

/**
 * The console's Server-Sent Events: each open page holds one stream, and one read of the state
 * (only while a page is open) serves all of them, so ten pages cost Redis what one does. A page
 * gets the hour's history and the state when it connects, then a `patch` of what changed since
 * the state it last got (state-patch.ts), one patch text shared by every page that is up to date:
 * each second, and CHANGED_SOONEST_MS after the last when changed() says the state changed (the
 * runner's orders, the halt flag, a pull), so the page follows the exchange as /status does
 * rather than a second late.
 *
 * A page that does not keep up costs one state, never a queue: once its connection refuses more,
 * nothing is written to it until it drains, and then one patch brings it from the state it last
 * got to the newest. Past STUCK_AFTER_MS refusing, or MAX_QUEUED_BYTES queued, it is dropped.
 */
export class ConsoleHub {
  readonly #parts: ConsoleHubParts;
  readonly #pages = new Set<Page>();
  readonly #loop: PacedLoop;
  #latest: ConsoleState | undefined;

  constructor(parts: ConsoleHubParts) {
    this.#parts = parts;
    this.#loop = new PacedLoop({
      clock: parts.clock,
      everyMs: STATE_EVERY_MS,
      soonestMs: CHANGED_SOONEST_MS,
      step: async (stopped) => {
        const state = await parts.state();
        if (!stopped.aborted) this.#publish(state);
      },
      onError: (err) => parts.log.warn({ err: errorMessage(err) }, 'console: state read failed'),
    });
  }

  get pages(): number {
    return this.#pages.size;
  }

  /** GET /console/stream: the stream, or 503 once the cap is reached. */
  answer(): RouteAnswer {
    const max = this.#parts.maxStreams;
    if (this.#pages.size < max) return { stream: (res) => this.open(res) };
    const error = `${max} console streams are open, the most http.max_streams allows: close a page or raise it`;
    return { json: { error }, status: 503 };
  }

  /** What a page shows changed (a message said so): open pages get it soon. */
  changed(): void {
    this.#loop.changed();
  }

  /** Takes over a response: headers, the history, the state, then its patches. */
  open(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
      // No proxy buffering (nginx): a patch must reach the page when it is sent.
      'x-accel-buffering': 'no',
    });
    const page: Page = { res, sent: undefined, blockedSinceMs: undefined };
    res.on('close', () => this.#remove(page));
    res.on('drain', () => this.#drained(page));
    this.#pages.add(page);
    void (async () => {
      try {
        const history = await this.#parts.history();
        const state = await this.#parts.state();
        // Its start goes out whatever the connection says: a page without them shows nothing.
        this.#write(page, frame('history', history));
        this.#write(page, frame('state', state));
        page.sent = state;
      } catch (err) {
        this.#parts.log.warn({ err: errorMessage(err) }, 'console: first read failed');
      }
    })();
    this.#loop.start();
  }

  /** Ends every stream (the process is stopping). */
  close(): void {
    void this.#loop.stop();
    for (const page of this.#pages) page.res.end();
    this.#pages.clear();
  }

  /** A page left; with the last one, the reads stop. */
  #remove(page: Page): void {
    if (!this.#pages.delete(page) || this.#pages.size > 0) return;
    void this.#loop.stop();
    this.#latest = undefined;
  }

  #publish(state: ConsoleState): void {
    this.#latest = state;
    const now = this.#parts.clock.now();
    // Pages that got the same state get the same text: computed once per state they start from.
    const frames = new Map<ConsoleState, string | undefined>();
    for (const page of this.#pages) {
      if (page.blockedSinceMs !== undefined) {
        if (now - page.blockedSinceMs >= STUCK_AFTER_MS) this.#drop(page, 'stuck');
        continue;
      }
      if (page.sent === undefined) continue;
      if (!frames.has(page.sent)) frames.set(page.sent, patchFrame(page.sent, state));
      this.#sendPatch(page, frames.get(page.sent), state);
    }
  }

  /** A page took what was queued: it gets one patch up to the newest state. */
  #drained(page: Page): void {
    page.blockedSinceMs = undefined;
    const latest = this.#latest;
    if (latest === undefined || page.sent === undefined || page.sent === latest) return;
    this.#sendPatch(page, patchFrame(page.sent, latest), latest);
  }

  #sendPatch(page: Page, text: string | undefined, state: ConsoleState): void {
    page.sent = state;
    if (text !== undefined) this.#write(page, text);
  }

  #write(page: Page, text: string): void {
    const { res } = page;
    if (res.writableEnded || res.destroyed) return;
    if (res.write(text)) return;
    page.blockedSinceMs ??= this.#parts.clock.now();
    if (res.writableLength > MAX_QUEUED_BYTES) this.#drop(page, 'queue');
  }

  #drop(page: Page, why: 'stuck' | 'queue'): void {
    this.#parts.log.info(
      {
        remote: page.res.socket?.remoteAddress,
        queuedBytes: page.res.writableLength,
        why:
          why === 'stuck'
            ? `took nothing for ${STUCK_AFTER_MS / 1000} s`
            : `over ${MAX_QUEUED_BYTES} bytes queued`,
      },
      'console: slow stream dropped',
    );
    this.#remove(page);
    page.res.destroy();
  }
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function patchFrame(from: ConsoleState, to: ConsoleState): string | undefined {
  const patch = statePatch(from, to);
  return patch === undefined ? undefined : frame('patch', patch);
}
