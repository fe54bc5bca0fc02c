import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * Young-generation collections at a moment the caller knows is idle.
 *
 * V8 scavenges when the young generation is full, and it fills while a tick allocates: the pause
 * (1–7 ms measured in bench/executor.ts, some 40 times a minute) then lands on a tick's way to the
 * wire and made most of tick-to-wire's tail there. Collected once it is half full, right after a
 * burst of work has been written, it is collected between ticks instead, and the scavenges V8
 * would start mid-tick become rare. A scavenge costs what survives it, not what is freed, so
 * collecting earlier costs little more in all.
 */

/** The young generation is collected early once this share of it is in use. */
export const SCAVENGE_AT_FILL = 0.5;

/**
 * How long before work due at a known moment (a call held for its ratecount due) no early
 * collection starts: an early scavenge takes 1–5 ms here, and one started just before the due
 * holds the call by as much (bench/executor.ts: 4.3 ms after a due, from a scavenge begun 3.7 ms
 * before it).
 */
export const SCAVENGE_QUIET_MS = 6;

/**
 * Windows in which nothing is collected early, by their owner (a pair's executor): from..to on
 * performance.now(). One owner has one window at a time; setting it again replaces it.
 */
const quiet = new Map<object, { readonly fromMs: number; readonly toMs: number }>();

/**
 * No early collection from `startsInMs` to `endsInMs` from now (Infinity: until released), for
 * `owner`: work on its way to the wire now (0, Infinity) or due at a known moment.
 */
export function quietWindow(owner: object, startsInMs: number, endsInMs: number): void {
  const now = performance.now();
  quiet.set(owner, { fromMs: now + startsInMs, toMs: now + endsInMs });
}

/** `owner`'s window ends: early collections may run again as far as it is concerned. */
export function endQuietWindow(owner: object): void {
  quiet.delete(owner);
}

/** Whether no window holds early collections off at `atMs` (performance.now(); default now). */
export function quietAt(atMs = performance.now()): boolean {
  const now = performance.now();
  for (const [owner, w] of quiet) {
    if (w.toMs <= now) quiet.delete(owner);
    else if (w.fromMs <= atMs && atMs < w.toMs) return false;
  }
  return true;
}

type Collect = (options?: { type: 'minor' }) => void;

let collect: Collect | null | undefined;

/**
 * V8's gc(), from its gc extension: `--expose-gc` set at run time is honoured by contexts made
 * afterwards (jest's leak detector gets gc() the same way), so no command-line flag is needed.
 * Null if this runtime does not provide it; then nothing is collected early.
 */
function collector(): Collect | null {
  if (collect !== undefined) return collect;
  try {
    v8.setFlagsFromString('--expose-gc');
    const fn: unknown = vm.runInNewContext('gc');
    collect = typeof fn === 'function' ? (fn as Collect) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** The share of the young generation in use now (0..1). */
export function youngFill(): number {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  if (space === undefined) return 0;
  const capacity = space.space_used_size + space.space_available_size;
  return capacity > 0 ? space.space_used_size / capacity : 0;
}

/**
 * A full collection now, for a role about to start its work: what start-up left behind (modules
 * loaded, connections made, the first reads) would otherwise be collected during the first ticks
 * (three pauses of 7–8 ms in the bench's first quotes). Says whether it ran.
 */
export function collectStartupGarbage(): boolean {
  const fn = collector();
  if (fn === null) return false;
  // gc() without options: on Node 20 gc({ type: 'major' }) returns without freeing the old
  // generation (measured), the bare call is the full collection.
  fn();
  return true;
}

/**
 * Collects the young generation now if it is at least SCAVENGE_AT_FILL full and no quiet window
 * is open; says whether it did. Call only where a pause of a few milliseconds delays nothing
 * waiting in this turn: what is waiting beyond it (a call held for its due, a drain in progress)
 * says so with quietWindow().
 */
export function scavengeIfFilling(): boolean {
  if (youngFill() < SCAVENGE_AT_FILL || !quietAt()) return false;
  const fn = collector();
  if (fn === null) return false;
  fn({ type: 'minor' });
  return true;
}
