import type { Redis } from 'ioredis';

/**
 * Where a control action came in: `cli` a shell on the deployment's Redis, `cli-http` a shell
 * acting on a running process's HTTP endpoint (`makerd halt --http URL`).
 */
export type AuditDoor = 'console' | 'http' | 'cli' | 'cli-http' | 'supervisor' | 'runner';
export type AuditAction = 'halt' | 'resume' | 'pull' | 'restore';

/** One control action as the trail keeps it. */
export interface AuditEntry {
  /** When it was done, ms since the epoch on the acting process's clock. */
  readonly tMs: number;
  /** Who: the name an operator typed or sent, `user@host` of a shell, `supervisor`, `runner`. */
  readonly actor: string;
  readonly door: AuditDoor;
  /** The peer's address, for the HTTP doors. */
  readonly remote?: string;
  readonly action: AuditAction;
  /** The pair a pull or restore names. */
  readonly pair?: string;
  readonly reason?: string;
  /** Whether the action changed the state (a second halt or a resume while running do not). */
  readonly changed: boolean;
  /** What came of it, with the state before: `already halted by supervisor for ...`. */
  readonly outcome: string;
}

/** An entry read back, with its stream id; door and action as written (by makerd, or by hand). */
export interface AuditRecord extends Omit<AuditEntry, 'door' | 'action'> {
  readonly id: string;
  readonly door: string;
  readonly action: string;
}

/**
 * Entries kept. XADD trims with MAXLEN ~, which keeps at least this many (whole stream nodes are
 * dropped, so a few hundred more may stay) at a constant cost per append.
 */
export const AUDIT_KEPT = 10_000;

/**
 * The deployment's audit trail: every halt, resume, pull and restore from any door, one Redis
 * stream under the bot's prefix that every process appends to and `makerd audit` and the console
 * read. Durable as Redis is (the compose stack's Redis keeps an AOF), capped at AUDIT_KEPT.
 */
export class AuditTrail {
  readonly key: string;
  readonly #redis: Redis;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.key = `${prefix}:audit`;
  }

  async append(entry: AuditEntry): Promise<string> {
    const fields: string[] = [];
    for (const [name, value] of Object.entries(entry)) {
      if (value !== undefined) fields.push(name, String(value));
    }
    const id = await this.#redis.xadd(this.key, 'MAXLEN', '~', AUDIT_KEPT, '*', ...fields);
    return id ?? '';
  }

  /** The newest `n`, oldest first. */
  async recent(n: number): Promise<AuditRecord[]> {
    const rows = await this.#redis.xrevrange(this.key, '+', '-', 'COUNT', n);
    return rows.reverse().map(([id, fields]) => recordOf(id, fields));
  }
}

/** An entry from its stream fields; one written by hand reads with what it has. */
function recordOf(id: string, flat: string[]): AuditRecord {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) f.set(flat[i] as string, flat[i + 1] as string);
  const remote = f.get('remote');
  const pair = f.get('pair');
  const reason = f.get('reason');
  return {
    id,
    tMs: Number(f.get('tMs') ?? id.split('-')[0]),
    actor: f.get('actor') ?? '?',
    door: f.get('door') ?? '?',
    ...(remote === undefined ? {} : { remote }),
    action: f.get('action') ?? '?',
    ...(pair === undefined ? {} : { pair }),
    ...(reason === undefined ? {} : { reason }),
    changed: f.get('changed') === 'true',
    outcome: f.get('outcome') ?? '',
  };
}
