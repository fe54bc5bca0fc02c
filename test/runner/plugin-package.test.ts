/**
 * An operator's plugin package against makerd as npm ships it: `npm pack` of this checkout,
 * unpacked into a temporary project's node_modules/makerd with its dependencies linked from ours
 * (no network), then the shipped strategies (their imports pointed at `makerd`) and the README's
 * example are compiled with `tsc --strict` and run. The project has no @types/node, as a plugin
 * needs none: makerd's declarations, not its sources, are what the compiler must meet.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BIN } from '../support/spawn.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const API = '../src/runner/strategy-api.js';
const temp = mkdtempSync(join(tmpdir(), 'makerd-plugin-'));
const project = join(temp, 'project');
after(() => rmSync(temp, { recursive: true, force: true }));

/** The README's example plugin, with the helpers it lists, as an operator's package writes it. */
const README_PLUGIN = `import {
  BPS, DecimalOption, EDGE_OPTIONS, QUOTE_HANDLING_OPTIONS, applyFloor, clampPostOnly, dec,
  defineStrategy, quoteFloor, quoteHandling, Type, type DesiredQuote, type Side,
} from 'makerd';

export default defineStrategy({
  name: 'join-best',
  version: '1.0.0',
  options: Type.Object(
    {
      order_size: DecimalOption({ positive: true, default: '0.01', description: 'Volume.' }),
      ...QUOTE_HANDLING_OPTIONS,
      ...EDGE_OPTIONS,
    },
    { additionalProperties: false },
  ),
  init: () => ({}),
  quote(snapshot, state, ctx) {
    const { bestBid, bestAsk, mid } = snapshot;
    if (bestBid === undefined || bestAsk === undefined || mid === undefined) return { quotes: [], state };
    // Under a basis point of spread there is nothing to earn.
    if (bestAsk.minus(bestBid).div(mid).lt(BPS)) return { quotes: [], state };
    const floor = quoteFloor(snapshot, ctx.options);
    const quote = (side: Side, best: typeof bestBid): DesiredQuote => ({
      side,
      level: 0,
      price: clampPostOnly(side, applyFloor(side, best, mid, floor), snapshot, ctx.options.post_only),
      volume: dec(ctx.options.order_size),
      ...quoteHandling(ctx.options),
    });
    return { quotes: [quote('buy', bestBid), quote('sell', bestAsk)], state, floor };
  },
});
`;

function tsc(...args: string[]): string {
  const tscBin = join(repo, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tscBin, ...args], { cwd: project, encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`.trim();
}

before(() => {
  // The pack takes dist/ as it is: a stale one would test an old build, so say what to run.
  const bin = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
  assert.doesNotMatch(bin.stderr, /dist\/ is/, 'dist/ is not current: `npm run build` first');
  // --ignore-scripts: `prepare` would rebuild dist/ under the other tests' feet.
  const tarball = execFileSync(
    'npm',
    ['pack', '--ignore-scripts', '--silent', '--pack-destination', temp],
    { cwd: repo, encoding: 'utf8' },
  ).trim();
  const installed = join(project, 'node_modules/makerd');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['xzf', join(temp, tarball), '-C', installed, '--strip-components=1']);
  // Every package we have, but no @types/node: whether the plugin's project has them is its own
  // affair, and makerd must not need them there.
  const modules = join(repo, 'node_modules');
  for (const name of readdirSync(modules)) {
    if (name.startsWith('.') || name === '@types') continue;
    symlinkSync(join(modules, name), join(project, 'node_modules', name));
  }
  writeFileSync(join(project, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const file of readdirSync(join(repo, 'strategies')).filter((f) => f.endsWith('.ts'))) {
    const source = readFileSync(join(repo, 'strategies', file), 'utf8');
    assert.ok(source.includes(`'${API}'`), `${file} imports ${API}`);
    writeFileSync(join(project, file), source.replaceAll(`'${API}'`, "'makerd'"));
  }
  writeFileSync(join(project, 'join-best.ts'), README_PLUGIN);
});

describe('a plugin package compiled against the packed makerd', () => {
  it('type-checks under --strict without @types/node and runs', () => {
    // --skipLibCheck as `tsc --init` writes it; --preserveSymlinks keeps the linked packages from
    // finding our own @types/node beside their real paths.
    const flags = ['--strict', '--skipLibCheck', '--preserveSymlinks'];
    const module = ['--module', 'nodenext', '--target', 'es2022', '--outDir', 'out'];
    const files = readdirSync(project).filter((f) => f.endsWith('.ts'));
    assert.equal(tsc(...flags, ...module, ...files), '');
    for (const file of files) {
      const name = file.replace(/\.ts$/, '');
      const script = `const p = (await import('./out/${name}.js')).default; process.stdout.write(p.name);`;
      const ran = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project,
        encoding: 'utf8',
      });
      assert.equal(ran, name);
    }
  });

  it('meets declarations, not sources: the package types point at dist/', () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules/makerd/package.json'), 'utf8'),
    ) as { types: string; exports: { '.': { types: string } } };
    assert.equal(manifest.types, './dist/src/index.d.ts');
    assert.equal(manifest.exports['.'].types, './dist/src/index.d.ts');
    const listed = tsc(
      '--strict',
      '--skipLibCheck',
      '--preserveSymlinks',
      '--module',
      'nodenext',
      '--noEmit',
      '--listFilesOnly',
      'join-best.ts',
    );
    const ours = listed.split('\n').filter((f) => f.includes('/node_modules/makerd/'));
    assert.ok(ours.length > 0);
    assert.deepEqual(
      ours.filter((f) => !f.endsWith('.d.ts')),
      [],
    );
  });
});
