import type { Action } from './api.js';

/** What the operator typed in the confirmation dialog. */
export interface ActionInput {
  readonly reason: string;
  readonly operator: string;
}

/** One of the console's actions: how its confirmation reads, and the request it sends. */
export interface ActionSpec {
  readonly title: string;
  readonly message: string;
  /** The confirm button's label. */
  readonly confirm: string;
  /** Red confirm button: the action stops trading. */
  readonly danger: boolean;
  /** Asks for a reason too (kept in the audit log). */
  readonly reason: boolean;
  readonly request: (input: ActionInput) => Action;
}

export const HALT: ActionSpec = {
  title: 'Halt makerd?',
  message: 'makerd stops quoting every pair and cancels every order of its key, until resumed.',
  confirm: 'Halt',
  danger: true,
  reason: true,
  request: ({ reason, operator }) => ({ path: 'halt', body: { reason, operator } }),
};

export const RESUME: ActionSpec = {
  title: 'Resume makerd?',
  message: 'The runner quotes again from its next tick. Pulled pairs stay pulled.',
  confirm: 'Resume',
  danger: false,
  reason: false,
  request: ({ operator }) => ({ path: 'resume', body: { operator } }),
};

export function pull(pair: string): ActionSpec {
  return {
    title: `Pull ${pair}?`,
    message: `Cancels every order of ${pair} and stops quoting it until restored.`,
    confirm: 'Pull',
    danger: true,
    reason: false,
    request: ({ operator }) => ({ path: 'pull', body: { pair, operator } }),
  };
}

export function restore(pair: string): ActionSpec {
  return {
    title: `Restore ${pair}?`,
    message: `The runner quotes ${pair} again from its next tick.`,
    confirm: 'Restore',
    danger: false,
    reason: false,
    request: ({ operator }) => ({ path: 'restore', body: { pair, operator } }),
  };
}
