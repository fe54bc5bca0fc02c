import { processHttpDoor } from '../console/process-http.js';
import { runRoles, type RoleName } from '../daemon/run-roles.js';
import { roleContext, type RoleCommandOptions } from './role-command.js';
import { untilSignal } from './signals.js';

/**
 * `makerd run|runner|executor|supervisor`: the roles named, in this process (src/daemon), with
 * the console's HTTP endpoint, until SIGINT or SIGTERM (a second one, not in the same burst,
 * exits at once).
 */
export function runProcessCommand(
  name: string,
  roles: readonly RoleName[],
  opts: RoleCommandOptions,
): Promise<void> {
  // Before anything starts, so that a Ctrl-C during the start-up stops in order (run-roles.ts).
  const stopAsked = untilSignal();
  const label = name === 'run' ? 'makerd' : name;
  const ctx = roleContext(label, opts);
  return runRoles(label, ctx, roles, {
    startedMsg: name === 'run' ? 'makerd running' : `${name} started`,
    door: processHttpDoor(ctx.logTap),
    stopAsked,
  });
}
