/**
 * Redis commands by command over a window: `INFO commandstats` deltas (every call, those a Lua
 * script makes inside Redis included) and a MONITOR connection that tells the two apart (its
 * source is `lua` for a script's calls) and names the key each touches, so a count can be
 * traced to the loop that sends it.
 */
import type { Redis } from 'ioredis';

/** Calls per command name (`get`, `evalsha`, `config|resetstat`). */
export type CommandCounts = Map<string, number>;

export async function commandStats(redis: Redis): Promise<CommandCounts> {
  const text = await redis.info('commandstats');
  const counts: CommandCounts = new Map();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    counts.set(m[1] as string, Number(m[2]));
  }
  return counts;
}

export function minus(after: CommandCounts, before: CommandCounts): CommandCounts {
  const delta: CommandCounts = new Map();
  for (const [name, n] of after) {
    const d = n - (before.get(name) ?? 0);
    if (d > 0) delta.set(name, d);
  }
  return delta;
}

export interface Monitored {
  /** Sent by clients, per command. */
  readonly client: CommandCounts;
  /** Run by Lua scripts inside Redis, per command. */
  readonly lua: CommandCounts;
  /** Client commands per `command key-shape` (the prefix and pair names replaced). */
  readonly byKey: CommandCounts;
  stop(): Promise<void>;
}

/** Counts what crosses `redis` (a connection of its own: it turns into a monitor) until stop(). */
export async function monitorCommands(
  redis: Redis,
  prefix: string,
  pairs: readonly string[],
): Promise<Monitored> {
  const monitor = await redis.monitor();
  const client: CommandCounts = new Map();
  const lua: CommandCounts = new Map();
  const byKey: CommandCounts = new Map();
  const add = (m: CommandCounts, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const name = (args[0] ?? '?').toLowerCase();
    if (name === 'info' || name === 'monitor') return;
    if (source === 'lua') {
      add(lua, name);
      return;
    }
    add(client, name);
    // EVALSHA's key is its third argument; every other command's, its second.
    const key = (name === 'evalsha' || name === 'eval' ? args[3] : args[1]) ?? '';
    add(byKey, `${name} ${keyShape(key, prefix, pairs)}`);
  });
  return { client, lua, byKey, stop: () => Promise.resolve(monitor.disconnect()) };
}

function keyShape(key: string, prefix: string, pairs: readonly string[]): string {
  let shape = key.split(prefix).join('P');
  for (const p of pairs) shape = shape.split(p).join('PAIR');
  return shape.replace(/[0-9a-f]{16}/g, 'H');
}
