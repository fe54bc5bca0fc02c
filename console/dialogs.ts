import type { ActionInput, ActionSpec } from './actions.js';
import type { ActionResult } from './api.js';
import { el, type Child } from './dom.js';
import { storedOperator, storeOperator } from './storage.js';

export interface ConfirmSpec extends Omit<ActionSpec, 'request'> {
  readonly run: (input: ActionInput) => Promise<ActionResult>;
  /** Called after a 401: the token dialog opens over this one, which stays for a retry. */
  readonly unauthorized: () => void;
  /** Called with a line to show once the daemon accepted the action. */
  readonly done: (message: string) => void;
}

function field(label: string, input: HTMLInputElement, hint?: string): HTMLElement {
  return el(
    'label',
    { class: 'field' },
    el('span', {}, label),
    input,
    hint === undefined ? null : el('small', {}, hint),
  );
}

function modal(
  name: string,
  ...children: Child[]
): { dialog: HTMLDialogElement; form: HTMLFormElement } {
  const form = el('form', { novalidate: '' }, ...children);
  const dialog = el('dialog', { class: 'modal', 'data-dialog': name }, form);
  // Built for each use and gone once closed (Escape included), so no state lingers between uses.
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  return { dialog, form };
}

/**
 * Asks before an action: what it does, the operator's name (remembered for the tab), a reason
 * when halting. The dialog stays open on a refusal, showing the daemon's error line.
 */
export function confirmAction(spec: ConfirmSpec): void {
  const operator = el('input', {
    name: 'operator',
    autocomplete: 'username',
    maxlength: '64',
    required: '',
    value: storedOperator(),
  });
  const reason = el('input', {
    name: 'reason',
    maxlength: '200',
    required: '',
    autocomplete: 'off',
  });
  const error = el('p', { class: 'error', role: 'alert', 'data-field': 'error' });
  error.hidden = true;
  const submit = el(
    'button',
    { type: 'submit', class: spec.danger ? 'act danger' : 'act primary' },
    spec.confirm,
  );
  const cancel = el('button', { type: 'button', class: 'act' }, 'Cancel');
  const { dialog, form } = modal(
    'confirm',
    el('h2', {}, spec.title),
    el('p', {}, spec.message),
    spec.reason ? field('Reason', reason, 'kept in the audit log') : null,
    field('Your name', operator, 'recorded with the action'),
    error,
    el('div', { class: 'buttons' }, cancel, submit),
  );
  cancel.addEventListener('click', () => dialog.close());
  const fail = (text: string): void => {
    error.textContent = text;
    error.hidden = false;
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = operator.value.trim();
    const why = reason.value.trim();
    if (spec.reason && why === '') return fail('Say why: the reason goes to the audit log.');
    if (name === '') return fail('Enter your name: it goes to the audit log with the action.');
    storeOperator(name);
    submit.disabled = true;
    error.hidden = true;
    void spec.run({ reason: why, operator: name }).then((result) => {
      submit.disabled = false;
      if (result.ok) {
        dialog.close();
        spec.done(`${spec.confirm}: sent. The page shows the change with the next update.`);
        return;
      }
      fail(
        result.status === 401
          ? `${result.error} — enter the token again, then retry.`
          : result.error,
      );
      if (result.status === 401) spec.unauthorized();
    });
  });
  dialog.showModal();
  (spec.reason ? reason : operator).focus();
}

/** Asks for the bearer token; it is kept in sessionStorage only, for this tab. */
export function askToken(save: (token: string) => void, refused: boolean): void {
  if (document.querySelector('dialog[data-dialog="token"]') !== null) return;
  const token = el('input', {
    name: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: '',
    spellcheck: 'false',
  });
  const error = el('p', { class: 'error', role: 'alert' });
  error.hidden = true;
  const cancel = el('button', { type: 'button', class: 'act' }, 'Not now');
  const { dialog, form } = modal(
    'token',
    el('h2', {}, 'Bearer token'),
    el(
      'p',
      {},
      refused
        ? 'makerd refused the token this page had. Enter the current one.'
        : 'This makerd needs its HTTP bearer token to show its state and take actions.',
    ),
    field('Token', token, 'kept for this tab only (sessionStorage), never in a URL'),
    error,
    el(
      'div',
      { class: 'buttons' },
      cancel,
      el('button', { type: 'submit', class: 'act primary' }, 'Use token'),
    ),
  );
  cancel.addEventListener('click', () => dialog.close());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = token.value.trim();
    if (value === '') {
      error.textContent = 'Enter the token.';
      error.hidden = false;
      return;
    }
    dialog.close();
    save(value);
  });
  dialog.showModal();
  token.focus();
}
