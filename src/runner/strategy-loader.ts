/**
 * Finds a strategy plugin, imports it and checks its contract before the daemon trades with it,
 * so a typo in config or a broken plugin stops start-up with one message that says which
 * strategy, where it was looked for and what is wrong, rather than failing on the first tick.
 */
import { stat, readdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import {
  errorMessage,
  MakerdError,
  InvalidInputError,
  type MakerdErrorOptions,
} from '../core/errors.js';
import { closestName } from '../core/did-you-mean.js';
import type { PairInfo } from '../core/market.js';
import { parseWithSchema } from '../core/validate.js';
import type { StrategyContext, StrategyLog, StrategyPlugin } from './strategy-api.js';

export const STRATEGY_NAME_RE = /^[a-z0-9][a-z0-9-]*$/;
const SEMVER_RE = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const EXTENSIONS = ['.ts', '.js'] as const;

export interface StrategyLoadErrorDetails {
  /** The strategy as configured (bare name, path or package), or the plugin's name. */
  readonly ref: string;
  /** Where it was found or looked for, or the pair it was being started for. */
  readonly where?: string;
  readonly reason: string;
  /** Config path, e.g. `pairs[0].strategy.name`. */
  readonly field?: string;
}

export class StrategyLoadError extends MakerdError {
  readonly ref: string;
  readonly field: string | undefined;
  readonly reason: string;

  constructor(details: StrategyLoadErrorDetails, options: MakerdErrorOptions = {}) {
    const prefix = details.field === undefined ? '' : `${details.field}: `;
    const where = details.where === undefined ? '' : ` (${details.where})`;
    super(
      'STRATEGY_LOAD',
      `${prefix}strategy "${details.ref}"${where}: ${details.reason}`,
      options,
    );
    this.ref = details.ref;
    this.field = details.field;
    this.reason = details.reason;
  }
}

export interface LoadStrategyOptions {
  readonly strategiesDir: string;
  readonly field?: string;
}

/**
 * `ref` is a bare name (a built-in or operator file in strategiesDir), a path (relative to the
 * working directory), or an npm package name.
 */
export async function loadStrategy(
  ref: string,
  opts: LoadStrategyOptions,
): Promise<StrategyPlugin> {
  const fail = (reason: string, where?: string, cause?: unknown): StrategyLoadError =>
    new StrategyLoadError({ ref, reason, where, field: opts.field }, { cause });

  let specifier: string;
  let where: string;
  let notFound = 'not found; no such npm package is installed';
  if (STRATEGY_NAME_RE.test(ref)) {
    const found = await firstFile(candidatePaths(opts.strategiesDir, ref));
    if (found === undefined) {
      // An unscoped npm package has a bare name too: try it before giving up.
      notFound = notAStrategy(ref, await listStrategies(opts.strategiesDir), opts.strategiesDir);
      specifier = ref;
      where = 'npm package';
    } else {
      specifier = pathToFileURL(found).href;
      where = found;
    }
  } else if (isPathRef(ref)) {
    const path = isAbsolute(ref) ? ref : resolve(process.cwd(), ref);
    if ((await firstFile([path])) === undefined) throw fail(`not found; tried ${path}`);
    specifier = pathToFileURL(path).href;
    where = path;
  } else {
    specifier = ref;
    where = 'npm package';
  }

  let mod: unknown;
  try {
    mod = await importModule(specifier);
  } catch (err) {
    if (where === 'npm package' && isMissingPackage(err, ref)) {
      // A bare name that fell through to npm: the strategy names say more than "(npm package)".
      throw fail(notFound, STRATEGY_NAME_RE.test(ref) ? undefined : where, err);
    }
    throw fail(`import threw: ${errorMessage(err)}`, where, err);
  }

  const plugin = pickExport(mod);
  if (plugin === undefined) {
    throw fail('the module has no default export (nor a named export `strategy`)', where);
  }
  const problem = contractProblem(plugin);
  if (problem !== undefined) throw fail(problem, where);
  const checked = plugin as unknown as StrategyPlugin;
  if (where !== 'npm package' && STRATEGY_NAME_RE.test(ref) && checked.name !== ref) {
    // A file named after one strategy but exporting another would make config lie about what runs.
    throw fail(`the plugin's name is "${checked.name}", expected "${ref}" (the file name)`, where);
  }
  return checked;
}

/**
 * A bare name that is neither a strategy of `dir` nor an installed package: the names there are,
 * the one it probably misspells, and the other ways to name a plugin. Not the files tried: under
 * dist/ (the build) their paths say nothing an operator can act on.
 */
function notAStrategy(ref: string, names: string[] | undefined, dir: string): string {
  if (names === undefined) return `not found; the strategies directory ${dir} does not exist`;
  const close = closestName(ref, names);
  return (
    `not found: no strategy and no installed npm package of that name; ` +
    `${close === undefined ? '' : `did you mean ${close}? `}` +
    `the strategies are ${names.length > 0 ? names.join(', ') : 'none'}, ` +
    'or name a plugin file by its path (./my-strategy.ts)'
  );
}

/**
 * Imports a plugin. Node 20 cannot import a `.ts` file by itself: when the daemon runs compiled
 * (dist/), an operator's TypeScript plugin is loaded through tsx's documented register API, which
 * a checkout has (a development dependency); the image has no tsx, so there it must be compiled.
 */
async function importModule(specifier: string): Promise<unknown> {
  try {
    return await import(specifier);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    let register: () => unknown;
    try {
      ({ register } = (await import('tsx/esm/api')) as { register: () => unknown });
    } catch {
      throw new Error(
        'a TypeScript plugin needs tsx (npm install in a checkout) or compiling to .js first',
        { cause: err },
      );
    }
    register();
    // Under another URL: Node keeps the failed attempt in its module cache.
    return import(`${specifier}?typescript`);
  }
}

export interface StrategyInstance<Schema extends TSchema = TSchema, S = unknown> {
  readonly plugin: StrategyPlugin<Schema, S>;
  readonly context: StrategyContext<Static<Schema>>;
  readonly state: S;
}

export interface InstantiateBase {
  readonly pair: PairInfo;
  readonly log: StrategyLog;
  /** Config path of the options, e.g. `pairs[0].strategy.options`. */
  readonly field: string;
}

/**
 * Validates the options (an InvalidInputError names the bad option's full config path), builds
 * the context and runs init and start. A plugin throwing here is reported as a load failure of
 * that strategy for that pair, so start-up stops before any order is placed.
 */
export function instantiateStrategy<Schema extends TSchema, S>(
  plugin: StrategyPlugin<Schema, S>,
  rawOptions: unknown,
  ctxBase: InstantiateBase,
): StrategyInstance<Schema, S> {
  const where = `for pair ${ctxBase.pair.altname} (${ctxBase.pair.id})`;
  const fail = (reason: string, cause: unknown): StrategyLoadError =>
    new StrategyLoadError({ ref: plugin.name, where, reason }, { cause });

  let options: Static<Schema>;
  try {
    options = deepFreeze(parseWithSchema(plugin.options, rawOptions ?? {}, ctxBase.field));
  } catch (err) {
    if (err instanceof InvalidInputError) throw err;
    // The schema itself is broken (e.g. an unknown kind): that is the plugin's fault, not config's.
    throw fail(`options schema could not be applied: ${errorMessage(err)}`, err);
  }
  const context: StrategyContext<Static<Schema>> = Object.freeze({
    pair: ctxBase.pair,
    options,
    log: ctxBase.log,
  });

  let state: S;
  try {
    state = plugin.init(context);
  } catch (err) {
    throw fail(`init threw: ${errorMessage(err)}`, err);
  }
  if (isThenable(state)) {
    throw fail('init returned a Promise; init must be synchronous', undefined);
  }
  try {
    plugin.start?.(context);
  } catch (err) {
    throw fail(`start threw: ${errorMessage(err)}`, err);
  }
  return { plugin, context, state };
}

function candidatePaths(dir: string, name: string): string[] {
  return [
    ...EXTENSIONS.map((ext) => join(dir, `${name}${ext}`)),
    ...EXTENSIONS.map((ext) => join(dir, name, `index${ext}`)),
  ];
}

function isPathRef(ref: string): boolean {
  return ref.startsWith('.') || ref.startsWith('/') || /\.(?:[cm]?js|[cm]?ts)$/.test(ref);
}

async function firstFile(paths: readonly string[]): Promise<string | undefined> {
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) return path;
  }
  return undefined;
}

/** Names loadable as bare names from dir; undefined when dir does not exist. */
async function listStrategies(dir: string): Promise<string[] | undefined> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => undefined);
  if (entries === undefined) return undefined;
  const names = new Set<string>();
  for (const entry of entries) {
    if (entry.isDirectory()) {
      if (!STRATEGY_NAME_RE.test(entry.name)) continue;
      if (
        (await firstFile(candidatePaths(dir, entry.name).slice(EXTENSIONS.length))) !== undefined
      ) {
        names.add(entry.name);
      }
      continue;
    }
    const m = /^(.+)\.(?:ts|js)$/.exec(entry.name);
    const base = m?.[1];
    if (entry.isFile() && base !== undefined && STRATEGY_NAME_RE.test(base)) names.add(base);
  }
  return [...names].sort();
}

function pickExport(mod: unknown): unknown {
  if (!isObject(mod)) return undefined;
  let candidate = mod['default'] ?? mod['strategy'];
  // A CommonJS plugin imported from ESM arrives as { default: module.exports }, which may itself
  // hold the ESM-style default.
  if (isObject(candidate) && !('quote' in candidate) && isObject(candidate['default'])) {
    candidate = candidate['default'];
  }
  return candidate;
}

/** The first broken part of the plugin contract, or undefined when the plugin is sound. */
function contractProblem(plugin: unknown): string | undefined {
  if (!isObject(plugin))
    return `the default export is ${describe(plugin)}, expected a plugin object`;
  const { name, version, options } = plugin;
  if (typeof name !== 'string' || name === '') return '`name` is missing';
  if (!STRATEGY_NAME_RE.test(name)) {
    return `\`name\` ${JSON.stringify(name)} must be lower-case letters, digits and dashes`;
  }
  if (typeof version !== 'string' || !SEMVER_RE.test(version)) {
    return `\`version\` ${JSON.stringify(version) ?? 'undefined'} is not a semantic version (x.y.z)`;
  }
  // parseWithSchema needs TypeBox's Kind marker: a plain JSON schema would throw on first use.
  if (!isObject(options) || typeof (options as Record<symbol, unknown>)[Kind] !== 'string') {
    return '`options` is not a TypeBox schema (build it with Type.Object from the strategy API)';
  }
  if (options['type'] !== 'object') return '`options` is not an object schema (use Type.Object)';
  for (const hook of ['init', 'quote'] as const) {
    if (typeof plugin[hook] !== 'function') return `\`${hook}\` is not a function`;
  }
  for (const hook of ['start', 'stop', 'fill'] as const) {
    if (plugin[hook] !== undefined && typeof plugin[hook] !== 'function') {
      return `\`${hook}\` is present but not a function`;
    }
  }
  if (plugin['description'] !== undefined && typeof plugin['description'] !== 'string') {
    return '`description` is not a string';
  }
  return undefined;
}

function isMissingPackage(err: unknown, ref: string): boolean {
  if (!isObject(err) || err['code'] !== 'ERR_MODULE_NOT_FOUND') return false;
  // Only the package itself missing counts as "not found"; a missing dependency of an installed
  // plugin is an import failure of that plugin.
  const pkg = ref.startsWith('@') ? ref.split('/').slice(0, 2).join('/') : ref.split('/')[0];
  return errorMessage(err).includes(`'${pkg}'`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isThenable(value: unknown): boolean {
  return isObject(value) && typeof value['then'] === 'function';
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'function' ? 'a function' : `a ${typeof value}`;
}

function deepFreeze<T>(value: T): T {
  if (isObject(value) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
