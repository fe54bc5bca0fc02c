import { InvalidInputError, MakerdError, errorMessage } from '../core/index.js';
import { optionalSecretFromEnv } from '../daemon/credentials.js';

/** The token variables the command line reads (a process's http.token_env defaults). */
const CONTROL = 'MAKERD_HTTP_TOKEN';
const READ = 'MAKERD_HTTP_READ_TOKEN';

/** How long a running process may take to answer before the command gives up. */
const ANSWER_WAIT_MS = 15_000;

/**
 * A running process's HTTP endpoint, for the command line (`makerd status|halt|resume|pull|restore
 * --http URL`). Acting needs the control token, from MAKERD_HTTP_TOKEN (or the file
 * MAKERD_HTTP_TOKEN_FILE names); reading takes the read token first (MAKERD_HTTP_READ_TOKEN), else
 * the control token. A refusal is one line naming the variable to set or check.
 */
export async function askProcess(
  url: string,
  request:
    | { readonly get: string }
    | { readonly post: string; readonly body: Readonly<Record<string, unknown>> },
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, unknown>> {
  const acting = 'post' in request;
  const path = acting ? request.post : request.get;
  const variables = acting ? [CONTROL] : [READ, CONTROL];
  let token: { readonly variable: string; readonly value: string } | undefined;
  for (const variable of variables) {
    const value = optionalSecretFromEnv(variable, env);
    if (value !== undefined) {
      token = { variable, value };
      break;
    }
  }
  const target = endpoint(url, path);
  let res: Response;
  try {
    res = await fetch(target, {
      method: acting ? 'POST' : 'GET',
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token.value}` }),
        ...(acting ? { 'content-type': 'application/json' } : {}),
      },
      ...(acting ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(ANSWER_WAIT_MS),
    });
  } catch (err) {
    throw new MakerdError('UNREACHABLE', `no answer from ${url}: ${errorMessage(err)}`);
  }
  // Not JSON (a proxy's error page): the status alone says what happened.
  const body: unknown = await res.json().catch(() => undefined);
  const answer: Record<string, unknown> =
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  if (res.ok) return answer;
  const error = typeof answer.error === 'string' ? answer.error : '';
  const said = error === '' ? '' : `: ${error}`;
  const hint = refusalHint(res.status, error, token?.variable, variables);
  throw new MakerdError(
    res.status === 400 ? 'INVALID_INPUT' : 'REFUSED',
    `${target.href} answered ${res.status}${said}${hint === undefined ? '' : ` (${hint})`}`,
  );
}

/**
 * What to do about a refused token: which variable to set, or to check. A 403 is the token's only
 * when the process says the read token was sent to act (others: a host or cross-site refusal).
 */
function refusalHint(
  status: number,
  error: string,
  used: string | undefined,
  variables: readonly string[],
): string | undefined {
  const settable = variables.map((v) => `${v} (or ${v}_FILE)`).join(' or ');
  if (status === 401) {
    return used === undefined
      ? `the process wants a token: set ${settable}`
      : `the token in ${used} is not the process's`;
  }
  if (status === 403 && used !== undefined && /read token/.test(error)) {
    return `${used} holds the read token: set it to the control token`;
  }
  if (status === 429) return `check ${used ?? settable}: wrong tokens lock the address out`;
  return undefined;
}

/** The route under the URL's own path (a proxy may serve makerd under /makerd/). */
function endpoint(url: string, path: string): URL {
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    throw new InvalidInputError('--http', `${url} is not a URL (e.g. http://127.0.0.1:9464)`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new InvalidInputError('--http', `${url}: http:// or https:// expected`);
  }
  const dir = base.pathname.endsWith('/') ? base.pathname : `${base.pathname}/`;
  return new URL(`${dir}${path.replace(/^\//, '')}`, base);
}
