import type { ServerResponse } from 'node:http';
import { errorMessage, every, type Clock, type Log } from '../core/index.js';
import type { ConsoleHistory, ConsoleState } from './state.js';

/** How often open pages get the deployment's state. */
export const STATE_EVERY_MS = 1_000;

export interface ConsoleHubParts {
  readonly state: () => Promise<ConsoleState>;
  readonly history: () => Promise<ConsoleHistory>;
  readonly clock: Clock;
  readonly log: Log;
}

/**
 * The console's Server-Sent Events: each open page holds one stream, and one read of the state a
 * second (only while a page is open) is written to all of them, so ten pages cost Redis what one
 * does. A page gets the hour's history and the state at once when it connects.
 */
export class ConsoleHub {
  readonly #parts: ConsoleHubParts;
  readonly #pages = new Set<ServerResponse>();
  #stop: AbortController | undefined;

  constructor(parts: ConsoleHubParts) {
    this.#parts = parts;
  }

  get pages(): number {
    return this.#pages.size;
  }

  /** Takes over a response: headers, the history, the state, then one state a second. */
  open(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
      // No proxy buffering (nginx): a state a second must arrive a second apart.
      'x-accel-buffering': 'no',
    });
    res.on('close', () => this.#pages.delete(res));
    this.#pages.add(res);
    void (async () => {
      try {
        write(res, 'history', await this.#parts.history());
        write(res, 'state', await this.#parts.state());
      } catch (err) {
        this.#parts.log.warn({ err: errorMessage(err) }, 'console: first read failed');
      }
    })();
    this.#startLoop();
  }

  /** Ends every stream (the process is stopping). */
  close(): void {
    this.#stop?.abort();
    this.#stop = undefined;
    for (const res of this.#pages) res.end();
    this.#pages.clear();
  }

  #startLoop(): void {
    if (this.#stop !== undefined) return;
    const stop = new AbortController();
    this.#stop = stop;
    void every(
      this.#parts.clock,
      STATE_EVERY_MS,
      stop.signal,
      async () => {
        if (this.#pages.size === 0) {
          stop.abort();
          if (this.#stop === stop) this.#stop = undefined;
          return;
        }
        const state = await this.#parts.state();
        for (const res of this.#pages) write(res, 'state', state);
      },
      (err) => this.#parts.log.warn({ err: errorMessage(err) }, 'console: state read failed'),
    );
  }
}

function write(res: ServerResponse, event: string, data: unknown): void {
  if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}
