import type { Redis } from 'ioredis';
import type { ConsoleEvent } from './state.js';

/** Events kept in Redis for the console (newest first). */
const KEPT = 100;
/** A log message longer than this is cut: the console lists, the log keeps the whole line. */
const MAX_MESSAGE = 300;

/**
 * The deployment's recent warnings and errors, in one capped Redis list that every process writes
 * and any process's console reads. Control actions have a trail of their own (AuditTrail).
 */
export class ConsoleEvents {
  readonly key: string;
  readonly #redis: Redis;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.key = `${prefix}:console:events`;
  }

  async push(event: ConsoleEvent): Promise<void> {
    await this.#redis
      .multi()
      .lpush(this.key, JSON.stringify(event))
      .ltrim(this.key, 0, KEPT - 1)
      .exec();
  }

  /** The newest `n`, newest first; an entry that does not parse is skipped. */
  async recent(n: number): Promise<ConsoleEvent[]> {
    const raw = await this.#redis.lrange(this.key, 0, n - 1);
    const out: ConsoleEvent[] = [];
    for (const line of raw) {
      try {
        out.push(JSON.parse(line) as ConsoleEvent);
      } catch {
        // Not ours to show.
      }
    }
    return out;
  }
}

/**
 * A pino destination for the warn and error lines of this process: once attached to the
 * deployment's ConsoleEvents, each becomes an event there (what pino wrote, redacted already;
 * lines logged before Redis is open are not kept). Writing never throws into the logger.
 */
export class LogTap {
  #events: ConsoleEvents | undefined;

  attach(events: ConsoleEvents): void {
    this.#events = events;
  }

  write(line: string): void {
    const events = this.#events;
    if (events === undefined) return;
    const event = eventOf(line);
    if (event !== undefined) void events.push(event).catch(() => undefined);
  }
}

function eventOf(line: string): ConsoleEvent | undefined {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const level =
    rec.level === 'warn' || rec.level === 'error' || rec.level === 'fatal' ? rec.level : undefined;
  if (level === undefined) return undefined;
  const time = typeof rec.time === 'string' ? Date.parse(rec.time) : Number(rec.time);
  const message = text(rec.msg, '');
  // The fields makerd's warnings carry their subject and cause in.
  const pair = text(rec.pair, '');
  const action = text(rec.action, '');
  const reason = cut([rec.err, rec.error, rec.reason].map(causeOf).find((c) => c !== '') ?? '');
  return {
    tMs: Number.isFinite(time) ? time : Date.now(),
    level: level === 'warn' ? 'warn' : 'error',
    source: text(rec.component, text(rec.role, 'makerd')),
    message: cut(message),
    ...(pair === '' ? {} : { pair }),
    ...(action === '' ? {} : { action }),
    ...(reason === '' ? {} : { reason }),
  };
}

function cut(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message;
}

/** A cause as text: a string, or the message of an error pino serialised. */
function causeOf(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'message' in value) {
    return text(value.message, '');
  }
  return text(value, '');
}

function text(value: unknown, otherwise: string): string {
  return typeof value === 'string' ? value : otherwise;
}
