import { hostname, userInfo } from 'node:os';
import { InvalidInputError, errorMessage, printableJson, type Log } from '../core/index.js';
import { askProcess } from '../console/process-client.js';
import type { Actor } from '../daemon/control-actions.js';
import { loadSettings } from '../daemon/settings-file.js';
import {
  haltDeployment,
  pullPair,
  restorePair,
  resumeDeployment,
  type ShellControl,
} from '../daemon/shell-control.js';
import { formatStatus, type StatusReport } from '../daemon/status-report.js';

export interface FlagCommandOptions {
  readonly config?: string;
}

/** Where an operator's action goes: a running process (`--http`), or a deployment's Redis. */
export interface ActOptions extends FlagCommandOptions {
  readonly http?: string;
}

/**
 * The operator's commands: `makerd halt` and `makerd resume` set and clear the halt flag that
 * every role obeys (a halt also cancels every order of the key itself, so it works while the
 * supervisor is down); `makerd pull` and `restore` stop and restart one pair's quotes; each goes
 * to the audit trail as the shell's `user@host`. With `--http URL` each asks a running process
 * instead (the demo, whose simulator and Redis only it knows), which records it as the shell's
 * over HTTP. `makerd status` reads what the roles left in Redis; `makerd audit` lists the trail.
 */
export async function runHalt(opts: ActOptions & { reason: string }): Promise<void> {
  const url = actionTarget('halt', opts);
  if (url !== undefined) {
    const answer = await actOverHttp(url, 'halt', { reason: opts.reason });
    if (typeof answer.cancelled === 'string') process.exitCode = 1;
    print(answer);
    return;
  }
  const done = await haltDeployment(shellControl(opts), opts.reason);
  if (typeof done.cancelled === 'string') process.exitCode = 1;
  print({
    halted: true,
    already: !done.set,
    reason: done.halt.reason,
    by: done.halt.by,
    sinceMs: done.halt.sinceMs,
    cancelled: done.cancelled,
    outcome: done.outcome,
  });
}

export async function runResume(opts: ActOptions): Promise<void> {
  const url = actionTarget('resume', opts);
  if (url !== undefined) {
    print(await actOverHttp(url, 'resume', {}));
    return;
  }
  const done = await resumeDeployment(shellControl(opts));
  print({
    resumed: done.changed,
    was: done.before.halted ? done.before.reason : 'not halted',
    outcome: done.outcome,
  });
}

/** `makerd pull PAIR`: the console's pull, for a shell (the runner reads it within a second). */
export async function runPull(pair: string, opts: ActOptions & { reason: string }): Promise<void> {
  const url = actionTarget('pull', opts);
  if (url !== undefined) {
    print(await actOverHttp(url, 'pull', { pair, reason: opts.reason }));
    return;
  }
  const done = await pullPair(shellControl(opts), pair, opts.reason);
  print({ pulled: done.pair, already: !done.changed, ...done.state, outcome: done.outcome });
}

export async function runRestore(pair: string, opts: ActOptions): Promise<void> {
  const url = actionTarget('restore', opts);
  if (url !== undefined) {
    print(await actOverHttp(url, 'restore', { pair }));
    return;
  }
  const done = await restorePair(shellControl(opts), pair);
  print({
    restored: done.pair,
    was: done.changed ? 'pulled' : 'not pulled',
    outcome: done.outcome,
  });
}

/** The deployment of `--config`, acted on through its Redis as this shell. */
function shellControl(opts: FlagCommandOptions): ShellControl {
  const { settings, dir } = loadSettings(opts.config);
  return { settings, configDir: dir, actor: shellActor(), log: stderrLog };
}

/** Only what went wrong (an audit entry not written) reaches a shell, on stderr. */
const stderrLog: Log = {
  debug: () => undefined,
  info: () => undefined,
  warn: (fields, msg) => void process.stderr.write(`makerd: ${msg}: ${errorMessage(fields.err)}\n`),
  error: (fields, msg) =>
    void process.stderr.write(`makerd: ${msg}: ${errorMessage(fields.err)}\n`),
  child: () => stderrLog,
};

/** Who acts from a shell: the user and the machine (the flag's `by` is `operator:user@host`). */
function shellActor(): Actor & { readonly name: string } {
  return { name: `${userInfo().username}@${hostname()}`, door: 'cli' };
}

/**
 * The process `--http` names, or undefined for the Redis of `--config`. Neither is refused: the
 * package's config/paper.yaml is rarely the process meant (the demo's simulator and Redis are its
 * own), and acting on it halted nothing running yet left a halt flag for the next `makerd run`.
 */
function actionTarget(action: string, opts: ActOptions): string | undefined {
  if (opts.http !== undefined && opts.config !== undefined) {
    throw new InvalidInputError('--http', 'give --http URL or --config FILE, not both');
  }
  if (opts.http !== undefined || opts.config !== undefined) return opts.http;
  throw new InvalidInputError(
    '--http or --config',
    `which makerd should ${action}? --http URL for a running process (makerd demo prints ` +
      "its own), --config FILE for a deployment through its Redis (makerd run's default is " +
      'config/paper.yaml)',
  );
}

/** POST /halt|resume|pull|restore of a running process, as this shell over HTTP. */
function actOverHttp(
  url: string,
  action: string,
  fields: Record<string, string>,
): Promise<Record<string, unknown>> {
  const { name } = shellActor();
  return askProcess(url, { post: action, body: { ...fields, operator: name, via: 'cli' } });
}

/** `makerd status --http URL`: a running process's /status, printed or as JSON. */
export async function printStatusOverHttp(url: string, json: boolean): Promise<void> {
  // /status of a running process needs no exchange call: the demo's simulator sits on a port of
  // its own.
  const report = (await askProcess(url, { get: 'status' })) as unknown as StatusReport;
  process.stdout.write(json ? `${printableJson(report)}\n` : formatStatus(report));
}

function print(value: object): void {
  process.stdout.write(`${printableJson(value)}\n`);
}
