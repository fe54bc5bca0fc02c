import { errorText } from './api.js';
import { reconnectDelayMs } from './retry.js';
import { SseParser, type SseEvent } from './sse.js';

export type LinkStatus =
  | { readonly kind: 'connecting' }
  | { readonly kind: 'live' }
  | { readonly kind: 'retrying'; readonly atMs: number; readonly reason: string }
  | { readonly kind: 'unauthorized' };

/** The daemon sends a state each second: this long without a byte means the link is dead. */
const SILENCE_MS = 10_000;

/**
 * The page's one stream: opens it, hands on each event, and reopens it after a backoff when it
 * fails, ends or falls silent (a phone changing networks leaves a socket that never errors). A
 * 401 stops it until start() is called again with a token.
 */
export class Link {
  readonly #open: (signal: AbortSignal) => Promise<Response>;
  readonly #onEvent: (event: SseEvent) => void;
  readonly #onStatus: (status: LinkStatus) => void;
  #running = false;
  #wake: (() => void) | undefined;

  constructor(
    open: (signal: AbortSignal) => Promise<Response>,
    onEvent: (event: SseEvent) => void,
    onStatus: (status: LinkStatus) => void,
  ) {
    this.#open = open;
    this.#onEvent = onEvent;
    this.#onStatus = onStatus;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    void this.#loop();
  }

  /** Skips the wait before the next try (the page became visible again). */
  retryNow(): void {
    this.#wake?.();
  }

  async #loop(): Promise<void> {
    let failures = 0;
    while (this.#running) {
      this.#onStatus({ kind: 'connecting' });
      const abort = new AbortController();
      let silent = false;
      let watchdog = 0;
      const arm = (): void => {
        clearTimeout(watchdog);
        watchdog = window.setTimeout(() => {
          silent = true;
          abort.abort();
        }, SILENCE_MS);
      };
      let reason: string;
      try {
        arm();
        const res = await this.#open(abort.signal);
        if (res.status === 401) {
          // Read to its end (one line): a cancelled body is reported as a failed request.
          await res.text().catch(() => '');
          this.#running = false;
          this.#onStatus({ kind: 'unauthorized' });
          return;
        }
        if (!res.ok || res.body === null) throw new Error(`HTTP ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        let live = false;
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          arm();
          for (const event of parser.push(read.value)) {
            if (!live) {
              live = true;
              failures = 0;
              this.#onStatus({ kind: 'live' });
            }
            this.#onEvent(event);
          }
        }
        reason = 'the daemon closed the stream';
      } catch (err) {
        reason = silent ? `no data for ${SILENCE_MS / 1000} s` : errorText(err);
      } finally {
        clearTimeout(watchdog);
      }
      failures += 1;
      const delay = reconnectDelayMs(failures, Math.random);
      this.#onStatus({ kind: 'retrying', atMs: Date.now() + delay, reason });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }
}
