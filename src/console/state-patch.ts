/**
 * The console stream's deltas: after the first state, a page is sent only what changed since the
 * state it was last sent (about 85 % of a second's state repeats the previous one). A patch is a
 * JSON merge patch (RFC 7396: an object patch merges key by key, `null` removes a key, anything
 * else replaces) with one extension, so a list whose items move (our pairs, the data ages) is
 * not resent whole: an object patch applied to an array of the same length patches its items by
 * index. An array of another length is replaced, and so is a value of another type (the state
 * never turns an array into an object). The page imports this file too.
 *
 * Values are JSON as the stream sends it: an undefined property is an absent one, and the state
 * holds no null of its own (null means "removed" here).
 */

/** The patch turning `prev` into `next`; undefined when they are the same JSON. */
export function statePatch(prev: unknown, next: unknown): unknown {
  if (isRecord(prev) && isRecord(next)) {
    const patch: Record<string, unknown> = {};
    for (const key of Object.keys(prev)) {
      if (prev[key] !== undefined && next[key] === undefined) patch[key] = null;
    }
    for (const [key, value] of Object.entries(next)) {
      if (value === undefined) continue;
      const change = prev[key] === undefined ? value : statePatch(prev[key], value);
      if (change !== undefined) patch[key] = change;
    }
    return Object.keys(patch).length === 0 ? undefined : patch;
  }
  if (Array.isArray(prev) && Array.isArray(next) && prev.length === next.length) {
    const patch: Record<string, unknown> = {};
    next.forEach((item, i) => {
      const change = statePatch(prev[i], item);
      if (change !== undefined) patch[i] = change;
    });
    return Object.keys(patch).length === 0 ? undefined : patch;
  }
  return Object.is(prev, next) ? undefined : next;
}

/** `target` with `patch` applied (a new value; `target` is left as it was). */
export function applyStatePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  if (Array.isArray(target)) {
    return target.map((item: unknown, i) => (i in patch ? applyStatePatch(item, patch[i]) : item));
  }
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyStatePatch(out[key], value);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
