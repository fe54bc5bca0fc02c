/**
 * Self time of a `node --cpu-prof` profile within a window, by the nearest frame of makerd's own
 * code up the stack (its file: decimal.js, ioredis and node internals count for their caller)
 * and by module. The window is in process.hrtime's clock, which V8's profile timestamps share
 * (CLOCK_MONOTONIC), so start-up and shutdown are left out.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: ProfileNode[];
  readonly startTime: number;
  readonly samples: number[];
  readonly timeDeltas: number[];
}

export function summariseProfile(dir: string, fromUs: number, toUs: number): string[] {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) return [`no .cpuprofile in ${dir}`];
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const byOwner = new Map<string, number>();
  const byModule = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  let at = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (at < fromUs || at > toUs) return;
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined || frame.functionName === '(idle)') return;
    busy += us;
    add(byOwner, ownerOf(id, nodes, parents), us);
    add(byModule, moduleOf(frame.url, frame.functionName), us);
    const seen = new Set<string>();
    for (let up: number | undefined = id; up !== undefined; up = parents.get(up)) {
      const f = nodes.get(up)?.callFrame;
      const own = /\/dist\/((?:src|strategies)\/.*)$/.exec(f?.url ?? '');
      if (own === null) continue;
      const name = `${own[1]} ${f?.functionName || '(anonymous)'}`;
      if (!seen.has(name)) add(inclusive, name, us);
      seen.add(name);
    }
  });
  const top = (m: Map<string, number>, n: number): string[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`);
  return [
    `profile: ${(busy / 1000).toFixed(0)} ms busy in the window; self time by the nearest own file up the stack:`,
    ...top(byOwner, 25),
    'self time by module:',
    ...top(byModule, 12),
    'inclusive time of own functions (each counted once per sample):',
    ...top(inclusive, 40),
  ];
}

function ownerOf(
  leaf: number,
  nodes: ReadonlyMap<number, ProfileNode>,
  parents: ReadonlyMap<number, number>,
): string {
  for (let id: number | undefined = leaf; id !== undefined; id = parents.get(id)) {
    const frame = nodes.get(id)?.callFrame;
    const own = /\/dist\/((?:src|strategies)\/.*)$/.exec(frame?.url ?? '');
    if (own !== null) return `${own[1]} ${frame?.functionName || '(anonymous)'}`;
  }
  const frame = nodes.get(leaf)?.callFrame;
  return `(no own frame) ${moduleOf(frame?.url ?? '', frame?.functionName ?? '')}`;
}

function moduleOf(url: string, functionName: string): string {
  if (url === '') return functionName;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg !== null) return `npm ${pkg[1] ?? ''}`;
  const ours = /\/dist\/(src\/[^/]+|strategies)/.exec(url);
  if (ours !== null) return ours[1] ?? url;
  if (url.startsWith('node:')) return 'node internals';
  return url;
}
