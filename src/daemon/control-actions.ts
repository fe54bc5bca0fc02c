import type { ControlFlags, HaltState, PullList, PullState } from '../bus/index.js';
import { errorMessage, type Clock, type Log } from '../core/index.js';
import type { AuditAction, AuditDoor, AuditEntry, AuditTrail } from './audit-trail.js';

/** Who acts through an operator's door. */
export interface Actor {
  /** The name the operator typed or sent (`alice`), or `user@host` of a shell; HTTP may send none. */
  readonly name?: string;
  readonly door: Extract<AuditDoor, 'console' | 'http' | 'cli' | 'cli-http'>;
  /** The peer's address, for the HTTP doors. */
  readonly remote?: string;
}

/** What an action did: whether it changed the state, and the trail's words for it. */
export interface ActionOutcome {
  readonly changed: boolean;
  readonly outcome: string;
}

export interface HaltDone {
  /** False: it was halted already (the first reason stays). */
  readonly set: boolean;
  /** Orders CancelAll took off, or why it failed; absent when the supervisor cancels. */
  readonly cancelled?: number | string;
}

export interface ControlActionsParts {
  readonly flags: Pick<ControlFlags, 'resume' | 'current'>;
  readonly pulled: PullList;
  readonly trail: AuditTrail;
  readonly clock: Clock;
  readonly log: Log;
  /** Sets the flag and takes every order off: through the supervisor, or haltAndCancel. */
  readonly halt: (reason: string, by: string) => Promise<HaltDone>;
}

/**
 * The four control actions as every operator door (console, HTTP, CLI) does them: each is done,
 * then appended to the audit trail with who, where from, why and what came of it, the state
 * before included (a halt while halted says whose halt stays; a resume while running says it
 * changed nothing), and logged as an `audit` line. An entry that cannot be written is logged as
 * an error; the action stands.
 */
export class ControlActions {
  readonly #p: ControlActionsParts;

  constructor(parts: ControlActionsParts) {
    this.#p = parts;
  }

  async halt(
    actor: Actor,
    reason: string,
  ): Promise<ActionOutcome & HaltDone & { halt: HaltState }> {
    const done = await this.#p.halt(reason, flagAuthor(actor));
    const halt = this.#p.flags.current();
    const cancelled =
      done.cancelled === undefined
        ? ''
        : typeof done.cancelled === 'number'
          ? `, ${done.cancelled} orders cancelled`
          : `; ${done.cancelled}`;
    const outcome = `${haltOutcome(done.set, halt)}${cancelled}`;
    return { ...done, halt, ...(await this.#record(actor, 'halt', { reason }, done.set, outcome)) };
  }

  /** Clears the halt flag; `before`: the halt it cleared (`halted: false`: none). */
  async resume(actor: Actor): Promise<ActionOutcome & { before: HaltState }> {
    const before = await this.#p.flags.resume();
    return {
      before,
      ...(await this.#record(actor, 'resume', {}, before.halted, resumeOutcome(before))),
    };
  }

  async pull(actor: Actor, pair: string, reason: string): Promise<ActionOutcome> {
    const { pulled, clock } = this.#p;
    const set = await pulled.pull(pair, {
      by: flagAuthor(actor),
      reason,
      sinceMs: Math.floor(clock.now()),
    });
    const state = pulled.current().get(pair);
    const outcome = set
      ? 'pulled'
      : `already pulled${state === undefined ? '' : ` ${pullText(state)}`}: not changed`;
    return this.#record(actor, 'pull', { pair, reason }, set, outcome);
  }

  async restore(actor: Actor, pair: string): Promise<ActionOutcome> {
    const before = await this.#p.pulled.restore(pair);
    const outcome =
      before === undefined
        ? 'not pulled: nothing to restore'
        : `restored; was pulled ${pullText(before)}`;
    return this.#record(actor, 'restore', { pair }, before !== undefined, outcome);
  }

  async #record(
    actor: Actor,
    action: AuditAction,
    about: { readonly pair?: string; readonly reason?: string },
    changed: boolean,
    outcome: string,
  ): Promise<ActionOutcome> {
    await appendAudit(this.#p, {
      tMs: Math.floor(this.#p.clock.now()),
      actor: actor.name ?? 'unnamed',
      door: actor.door,
      ...(actor.remote === undefined ? {} : { remote: actor.remote }),
      action,
      ...about,
      changed,
      outcome,
    });
    return { changed, outcome };
  }
}

/** Appends an entry and logs it as an `audit` line; one that cannot be written is logged instead. */
export async function appendAudit(
  to: { readonly trail: AuditTrail; readonly log: Log },
  entry: AuditEntry,
): Promise<void> {
  try {
    await to.trail.append(entry);
    to.log.info({ audit: true, ...entry }, `audit: ${entry.action}`);
  } catch (err) {
    to.log.error({ audit: true, ...entry, err: errorMessage(err) }, 'audit entry not written');
  }
}

/** An entry for a halt or resume a role decided itself (the supervisor, the runner's risk gate). */
export function ownEntry(
  door: Extract<AuditDoor, 'supervisor' | 'runner'>,
  nowMs: number,
  a: {
    readonly action: 'halt' | 'resume';
    readonly reason: string;
    readonly changed: boolean;
    readonly before: HaltState;
  },
): AuditEntry {
  const outcome = a.action === 'halt' ? haltOutcome(a.changed, a.before) : resumeOutcome(a.before);
  return {
    tMs: Math.floor(nowMs),
    actor: door,
    door,
    action: a.action,
    reason: a.reason,
    changed: a.changed,
    outcome,
  };
}

/** The flag's `by` for an operator's action, as status and the console show it. */
export function flagAuthor(actor: Actor): string {
  if (actor.name === undefined) return `operator:${actor.door}`;
  // A shell is named by its user@host, whichever way it reached the deployment.
  return actor.door === 'cli' || actor.door === 'cli-http'
    ? `operator:${actor.name}`
    : `operator:${actor.door} (${actor.name})`;
}

/** A halt's outcome; `inForce`: the halt the flag holds after it. */
function haltOutcome(set: boolean, inForce: HaltState): string {
  return set ? 'halted' : `already halted ${haltText(inForce)}: not changed`;
}

/** A resume's outcome; `before`: the halt it cleared. */
function resumeOutcome(before: HaltState): string {
  return before.halted
    ? `resumed; was halted ${haltText(before)}`
    : 'not halted: nothing to resume';
}

function haltText(h: HaltState): string {
  return `by ${h.by ?? '?'} for ${h.reason ?? '?'}${since(h.sinceMs)}`;
}

function pullText(p: PullState): string {
  return `by ${p.by} for ${p.reason}${since(p.sinceMs)}`;
}

function since(ms: number | undefined): string {
  return ms === undefined || !Number.isFinite(ms) ? '' : ` since ${new Date(ms).toISOString()}`;
}
