import type { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';
import PinoPretty from 'pino-pretty';
import { printable, printableBeyondC0 } from '../core/index.js';

export interface PrettyLogOptions {
  /** Where the readable lines go (a terminal, through the demo's status line). */
  readonly destination: Writable;
  readonly colorize: boolean;
  /** Fields left out of each line, comma-separated (`pid,hostname,role`). */
  readonly ignore: string;
}

/**
 * Readable log lines for a person at a terminal, one per event. A log line quotes exchange errors,
 * operator names and reasons, so nothing in it may reach the terminal raw: pino-pretty prints the
 * message and an error's stack as they are (a newline forges a line; its own filter drops ESC
 * without showing it was there) and JSON-escapes the other fields, which leaves DEL and C1 raw.
 * So the message and field names are made printable before, DEL and C1 escaped after; a stack
 * keeps its line breaks, which pino-pretty indents under the event.
 */
export function prettyLog(options: PrettyLogOptions): DestinationStream {
  const pretty = PinoPretty.prettyFactory({
    colorize: options.colorize,
    translateTime: 'SYS:HH:MM:ss',
    ignore: options.ignore,
    singleLine: true,
  });
  return {
    write: (line: string) => {
      options.destination.write(printableBeyondC0(pretty(printableEvent(parsed(line)))));
    },
  };
}

/** pino writes one JSON object a line; anything else is shown as a message. */
function parsed(line: string): Record<string, unknown> {
  try {
    const event = JSON.parse(line) as unknown;
    if (isRecord(event)) return event;
  } catch {
    // Shown as text below.
  }
  return { msg: line.trimEnd() };
}

function printableEvent(event: Record<string, unknown>): Record<string, unknown> {
  const out = printableNames(event) as Record<string, unknown>;
  if (typeof out.msg === 'string') out.msg = printable(out.msg);
  return out;
}

/** Field names made printable at every depth, and stacks line by line. */
function printableNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(printableNames);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      printable(key),
      key === 'stack' && typeof v === 'string'
        ? v.split('\n').map(printable).join('\n')
        : printableNames(v),
    ]),
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
