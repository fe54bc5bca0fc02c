import type {
  ConsoleSession,
  HaltRequest,
  PullPairRequest,
  ResumeRequest,
} from '../src/console/state.js';
import { storedToken } from './storage.js';

/**
 * The daemon's console endpoints sit beside app.js (/console/session, /console/stream ...), so the
 * page works wherever it is served from, a reverse proxy's sub-path included.
 */
const script = document.currentScript;
const base = new URL(
  './',
  script instanceof HTMLScriptElement ? script.src : new URL('console/', document.baseURI),
);
const endpoint = (name: string): URL => new URL(name, base);

export type ActionResult =
  { readonly ok: true } | { readonly ok: false; readonly error: string; readonly status?: number };

export type Action =
  | { readonly path: 'halt'; readonly body: HaltRequest }
  | { readonly path: 'resume'; readonly body: ResumeRequest }
  | { readonly path: 'pull' | 'restore'; readonly body: PullPairRequest };

function authorization(): Record<string, string> {
  const token = storedToken();
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The `{ error }` line of a refusal, else the status: what the operator is shown. */
async function refusal(res: Response): Promise<string> {
  const answer: unknown = await res.json().catch(() => undefined);
  if (typeof answer === 'object' && answer !== null && 'error' in answer) {
    const { error } = answer;
    if (typeof error === 'string' && error !== '') return error;
  }
  return `HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`;
}

export async function fetchSession(signal: AbortSignal): Promise<ConsoleSession> {
  const res = await fetch(endpoint('session'), { signal, cache: 'no-store' });
  if (!res.ok) throw new Error(`session: ${await refusal(res)}`);
  return (await res.json()) as ConsoleSession;
}

export function openStream(signal: AbortSignal): Promise<Response> {
  return fetch(endpoint('stream'), {
    signal,
    cache: 'no-store',
    headers: { Accept: 'text/event-stream', ...authorization() },
  });
}

export async function post(action: Action, session: ConsoleSession): Promise<ActionResult> {
  let res: Response;
  try {
    res = await fetch(endpoint(action.path), {
      method: 'POST',
      cache: 'no-store',
      headers: {
        'Content-Type': 'application/json',
        'X-Makerd-CSRF': session.csrf,
        ...authorization(),
      },
      body: JSON.stringify(action.body),
    });
  } catch (err) {
    return { ok: false, error: `makerd did not answer: ${errorText(err)}` };
  }
  if (!res.ok) return { ok: false, error: await refusal(res), status: res.status };
  const answer: unknown = await res.json().catch(() => undefined);
  if (typeof answer === 'object' && answer !== null && 'ok' in answer && answer.ok === true) {
    return { ok: true };
  }
  return { ok: false, error: 'makerd answered without ok: true', status: res.status };
}
