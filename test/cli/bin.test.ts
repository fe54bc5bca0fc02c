/**
 * bin/makerd.js runs dist/ while it is current and the sources through tsx once something they
 * are built from is newer than dist/.built (an edit, a pull, a removed file). Each case runs a
 * copy of the bin in a temporary package whose two mains only print which of them ran, with
 * mtimes set by hand.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const made: string[] = [];
after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Seconds since the epoch of the fake build; the sources are older, by default. */
const BUILT_AT = 1_800_000_000;
const INPUTS = [
  'src/cli/main.ts',
  'src/cli',
  'src',
  'strategies/spread.ts',
  'strategies',
  'console/app.ts',
  'console',
];

interface Setup {
  /** node_modules (so tsx) linked in; default yes. */
  readonly tsx?: boolean;
  /** src/ and strategies/ there, as in a checkout; default yes (no: the image). */
  readonly sources?: boolean;
  /** dist/src/cli/main.js there; default yes. */
  readonly dist?: boolean;
  /** dist/.built there; default yes. */
  readonly stamp?: boolean;
  /** These inputs get an mtime after the stamp's. */
  readonly newer?: readonly string[];
  /** The package sits in node_modules/makerd, as npm installs it. */
  readonly installed?: boolean;
}

function run(setup: Setup): { stdout: string; stderr: string; status: number | null } {
  const temp = mkdtempSync(join(tmpdir(), 'makerd-bin-'));
  made.push(temp);
  const dir = setup.installed === true ? join(temp, 'node_modules/makerd') : temp;
  mkdirSync(dir, { recursive: true });
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('package.json', '{ "type": "module" }\n');
  mkdirSync(join(dir, 'bin'));
  copyFileSync(join(repo, 'bin/makerd.js'), join(dir, 'bin/makerd.js'));
  if (setup.dist !== false) write('dist/src/cli/main.js', "process.stdout.write('dist');\n");
  if (setup.stamp !== false) write('dist/.built', '');
  if (setup.sources !== false) {
    // Type annotations: only tsx runs this.
    write('src/cli/main.ts', "const ran: string = 'sources';\nprocess.stdout.write(ran);\n");
    write('strategies/spread.ts', 'export default {};\n');
    write('console/app.ts', 'export {};\n');
    // Files before their folders: writing a file moves its folder's mtime.
    for (const input of INPUTS) {
      const at = BUILT_AT - (setup.newer?.includes(input) === true ? -60 : 60);
      utimesSync(join(dir, input), at, at);
    }
  }
  if (setup.stamp !== false) utimesSync(join(dir, 'dist/.built'), BUILT_AT, BUILT_AT);
  if (setup.tsx !== false) symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  const child = spawnSync(process.execPath, [join(dir, 'bin/makerd.js'), '--help'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { stdout: child.stdout, stderr: child.stderr, status: child.status };
}

describe('bin/makerd.js', () => {
  it('runs dist/ when nothing it is built from is newer than its stamp, saying nothing', () => {
    assert.deepEqual(run({}), { stdout: 'dist', stderr: '', status: 0 });
  });

  it('runs the sources through tsx once a file is newer, saying so on stderr', () => {
    const { stdout, stderr, status } = run({ newer: ['src/cli/main.ts'] });
    assert.equal(stdout, 'sources');
    assert.equal(status, 0);
    assert.match(stderr, /^makerd: dist\/ is out of date: .*`npm run build` refreshes it\n$/);
  });

  it("says when the console's page is newer than its bundle, and still runs dist/", () => {
    const { stdout, stderr } = run({ newer: ['console/app.ts'] });
    assert.equal(stdout, 'dist');
    assert.equal(
      stderr,
      'makerd: dist/console (the operator console) is out of date: `npm run build` refreshes it\n',
    );
  });

  it('counts a strategy, and a folder (a file added, removed or renamed in it)', () => {
    assert.equal(run({ newer: ['strategies/spread.ts'] }).stdout, 'sources');
    assert.equal(run({ newer: ['src/cli'] }).stdout, 'sources');
  });

  it('runs the sources when dist/ has no stamp or no main', () => {
    assert.equal(run({ stamp: false }).stdout, 'sources');
    const unbuilt = run({ dist: false, stamp: false });
    assert.equal(unbuilt.stdout, 'sources');
    assert.match(unbuilt.stderr, /dist\/ is not built/);
  });

  it('without tsx runs an out-of-date dist/, saying so, and fails in one line without one', () => {
    const old = run({ tsx: false, newer: ['src/cli/main.ts'] });
    assert.equal(old.stdout, 'dist');
    assert.match(old.stderr, /tsx is not installed/);
    const none = run({ tsx: false, dist: false, stamp: false });
    assert.equal(none.status, 1);
    assert.equal(none.stdout, '');
    assert.match(none.stderr, /^makerd: dist\/ is not built: .*npm ci.*\n$/);
  });

  it('runs dist/ unchecked where there are no sources (the image) or it is installed', () => {
    const dist = { stdout: 'dist', stderr: '', status: 0 };
    assert.deepEqual(run({ sources: false, stamp: false, tsx: false }), dist);
    // npm dates each file as it unpacks it: src/ is newer than dist/.built there.
    assert.deepEqual(run({ installed: true, newer: ['src'], tsx: false }), dist);
  });
});
