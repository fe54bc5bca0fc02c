import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InvalidInputError } from '../../src/core/index.js';
import {
  instantiateStrategy,
  loadStrategy,
  StrategyLoadError,
} from '../../src/runner/strategy-loader.js';
import { XBTUSD } from '../support/pairs.js';
import type { StrategyLog } from '../../src/runner/strategy-api.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => join(here, 'fixtures', `${name}.ts`);
const repoStrategies = join(here, '..', '..', 'strategies');
const apiUrl = pathToFileURL(join(here, '..', '..', 'src', 'runner', 'strategy-api.ts')).href;
const field = 'pairs[0].strategy.name';

const pair = XBTUSD;
const silent: StrategyLog = { info: () => undefined, warn: () => undefined };
const base = { pair, log: silent, field: 'pairs[0].strategy.options' };

async function loadError(ref: string, strategiesDir = here): Promise<StrategyLoadError> {
  const err = await loadStrategy(ref, { strategiesDir, field }).then(
    () => assert.fail(`${ref} loaded`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StrategyLoadError, String(err));
  assert.equal(err.code, 'STRATEGY_LOAD');
  return err;
}

void describe('loadStrategy by path', () => {
  void it('loads a sound plugin by absolute and cwd-relative path', async () => {
    const byAbsolute = await loadStrategy(fixture('good'), { strategiesDir: here });
    assert.equal(byAbsolute.name, 'good');
    assert.equal(byAbsolute.version, '1.2.3');
    const byRelative = await loadStrategy(`./${relative(process.cwd(), fixture('good'))}`, {
      strategiesDir: here,
    });
    assert.equal(byRelative, byAbsolute);
  });

  void it('falls back to a named export `strategy`', async () => {
    const plugin = await loadStrategy(fixture('named-export'), { strategiesDir: here });
    assert.equal(plugin.name, 'named');
  });

  const broken: [fixture: string, reason: RegExp][] = [
    ['no-default', /has no default export \(nor a named export `strategy`\)/],
    ['no-name', /`name` is missing/],
    ['bad-name', /`name` "Bad_Name" must be lower-case letters, digits and dashes/],
    ['bad-version', /`version` "1\.0" is not a semantic version \(x\.y\.z\)/],
    ['options-not-schema', /`options` is not a TypeBox schema/],
    ['options-not-object', /`options` is not an object schema/],
    ['quote-not-function', /`quote` is not a function/],
    ['init-not-function', /`init` is not a function/],
    ['hook-not-function', /`stop` is present but not a function/],
    ['import-throws', /import threw: fixture exploded at import/],
  ];
  for (const [name, reason] of broken) {
    void it(`rejects ${name} naming the ref, the file and the reason`, async () => {
      const err = await loadError(fixture(name));
      assert.match(err.message, reason);
      assert.ok(err.message.startsWith(`${field}: strategy "${fixture(name)}" (`), err.message);
      assert.ok(err.message.includes(`(${fixture(name)})`), err.message);
    });
  }

  void it('keeps the import error as the cause', async () => {
    const err = await loadError(fixture('import-throws'));
    assert.ok(err.cause instanceof Error);
    assert.equal(err.cause.message, 'fixture exploded at import');
  });

  void it('reports a missing file with the resolved path', async () => {
    const err = await loadError('./does/not/exist.ts');
    assert.match(err.message, /: not found; tried \/.*does\/not\/exist\.ts$/);
  });

  void it('reports an npm package that is not installed', async () => {
    const err = await loadError('@makerd-test/no-such-strategy');
    assert.match(
      err.message,
      /strategy "@makerd-test\/no-such-strategy" \(npm package\): not found; no such npm package/,
    );
  });
});

void describe('loadStrategy by bare name', () => {
  let dir = '';
  const plugin = (name: string): string =>
    [
      `import { defineStrategy, Type } from '${apiUrl}';`,
      `export default defineStrategy({`,
      `  name: '${name}',`,
      `  version: '0.1.0',`,
      `  options: Type.Object({}),`,
      `  init: () => undefined,`,
      `  quote: () => ({ quotes: [] }),`,
      `});`,
    ].join('\n');

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'makerd-strategies-'));
    await writeFile(join(dir, 'one-file.ts'), plugin('one-file'));
    await mkdir(join(dir, 'folder'));
    await writeFile(join(dir, 'folder', 'index.ts'), plugin('folder'));
    await writeFile(join(dir, 'misnamed.ts'), plugin('something-else'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it('loads a one-file plugin and a folder plugin', async () => {
    assert.equal((await loadStrategy('one-file', { strategiesDir: dir })).name, 'one-file');
    assert.equal((await loadStrategy('folder', { strategiesDir: dir })).name, 'folder');
  });

  void it('rejects a plugin whose name differs from the file name', async () => {
    const err = await loadError('misnamed', dir);
    assert.match(err.message, /the plugin's name is "something-else", expected "misnamed"/);
    assert.ok(err.message.includes(join(dir, 'misnamed.ts')));
  });

  void it('lists the strategy names, and the one a misspelt name probably means', async () => {
    assert.equal(
      (await loadError('one-fiel', dir)).message,
      `${field}: strategy "one-fiel": not found: no strategy and no installed npm package of ` +
        'that name; did you mean one-file? the strategies are folder, misnamed, one-file, or ' +
        'name a plugin file by its path (./my-strategy.ts)',
    );
    assert.doesNotMatch((await loadError('zzz', dir)).message, /did you mean|\.ts,|\.js/);
  });

  void it('says so when the strategies directory does not exist', async () => {
    const err = await loadError('spread', join(dir, 'nope'));
    assert.match(err.message, /strategies directory .*nope does not exist$/);
  });
});

void describe('built-in strategies', () => {
  for (const name of ['spread', 'avellaneda-stoikov', 'glft']) {
    const present = ['.ts', '.js', '/index.ts', '/index.js'].some((p) =>
      existsSync(join(repoStrategies, `${name}${p}`)),
    );
    void it(
      `loads ${name} from strategies/`,
      { skip: !present && `${name} not written yet` },
      async () => {
        const plugin = await loadStrategy(name, { strategiesDir: repoStrategies });
        assert.equal(plugin.name, name);
        // Every option has a default: an operator may name the strategy and nothing else.
        assert.doesNotThrow(() => instantiateStrategy(plugin, undefined, base));
      },
    );
  }
});

void describe('instantiateStrategy', () => {
  void it('applies option defaults, runs init and start, freezes the context', async () => {
    const plugin = await loadStrategy(fixture('good'), { strategiesDir: here });
    const { context, state } = instantiateStrategy(plugin, undefined, base);
    assert.deepEqual(context.options, { levels: 1, half_spread: '0.5' });
    assert.deepEqual(state, { levels: 1, started: false });
    assert.equal(context.pair, pair);
    assert.ok(Object.isFrozen(context) && Object.isFrozen(context.options));
  });

  const badOptions: [raw: unknown, message: RegExp][] = [
    [{ levels: 0 }, /^pairs\[0\]\.strategy\.options\.levels: .*greater or equal to 1, got 0$/],
    [{ levels: 1.5 }, /^pairs\[0\]\.strategy\.options\.levels: expected integer, got 1\.5$/],
    [
      { half_spread: 3 },
      /^pairs\[0\]\.strategy\.options\.half_spread: expected a string, got the number 3: quote it \('3'\)$/,
    ],
  ];
  for (const [raw, message] of badOptions) {
    void it(`names the bad option: ${JSON.stringify(raw)}`, async () => {
      const plugin = await loadStrategy(fixture('good'), { strategiesDir: here });
      assert.throws(
        () => instantiateStrategy(plugin, raw, base),
        (e: unknown) => e instanceof InvalidInputError && message.test(e.message),
      );
    });
  }

  const throwing: [fixture: string, reason: string][] = [
    ['init-throws', 'init threw: no reference price configured'],
    ['start-throws', 'start threw: warm-up failed'],
  ];
  for (const [name, reason] of throwing) {
    void it(`reports ${name} with the strategy and the pair`, async () => {
      const plugin = await loadStrategy(fixture(name), { strategiesDir: here });
      assert.throws(
        () => instantiateStrategy(plugin, {}, base),
        (e: unknown) =>
          e instanceof StrategyLoadError &&
          e.message === `strategy "${name}" (for pair XBTUSD (XXBTZUSD)): ${reason}` &&
          e.cause instanceof Error,
      );
    });
  }
});

void describe('loadStrategy from an installed npm package', () => {
  // import() resolves a package name from the loader's own location, so the package goes into the
  // project's node_modules for the duration of the test.
  const scope = join(here, '..', '..', 'node_modules', '@makerd-test');
  const unscoped = join(here, '..', '..', 'node_modules', 'makerd-test-join-best');
  const plugin = `import { Type } from '@sinclair/typebox';
export default {
  name: 'join-best', version: '2.1.0', options: Type.Object({}),
  init: () => ({}), quote: (snapshot, state) => ({ quotes: [], state }),
};
`;
  before(async () => {
    for (const dir of [join(scope, 'join-best'), unscoped]) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'package.json'), '{"type":"module","main":"index.js"}');
      await writeFile(join(dir, 'index.js'), plugin);
    }
  });
  after(async () => {
    await rm(scope, { recursive: true, force: true });
    await rm(unscoped, { recursive: true, force: true });
  });

  void it('loads a scoped package by its name', async () => {
    const loaded = await loadStrategy('@makerd-test/join-best', { strategiesDir: here });
    assert.equal(loaded.name, 'join-best');
    assert.equal(loaded.version, '2.1.0');
  });

  void it('loads an unscoped package when no file in strategies/ has that name', async () => {
    const loaded = await loadStrategy('makerd-test-join-best', { strategiesDir: here });
    assert.equal(loaded.name, 'join-best');
  });
});
