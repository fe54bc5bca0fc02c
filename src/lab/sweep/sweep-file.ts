import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { InvalidInputError, schemaProblem } from '../../core/index.js';

/**
 * The sweep file (docs/backtest.md#sweeps): which bot and recording, and the grid of what varies.
 * Relative paths are read from the file's folder.
 */
const strict = { additionalProperties: false } as const;

const Percent = Type.Number({ minimum: 0, maximum: 100 });

export const FeeChoice = Type.Object(
  {
    /** One rung replacing the maker ladder, percent. */
    maker: Type.Optional(Percent),
    /** One rung replacing the taker ladder, percent. */
    taker: Type.Optional(Percent),
    /** The key's 30-day volume (USD): where it sits on the pairs' ladders. */
    volume_usd: Type.Optional(Type.Number({ minimum: 0 })),
  },
  { ...strict, minProperties: 1 },
);
export type FeeChoice = Static<typeof FeeChoice>;

export const Variant = Type.Object(
  {
    /** The column's value; default the strategy's name. */
    name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$', maxLength: 64 })),
    /** The plugin; default each pair's configured one. */
    strategy: Type.Optional(Type.String({ minLength: 1 })),
    options: Type.Record(Type.String(), Type.Unknown(), { default: {} }),
  },
  strict,
);
export type Variant = Static<typeof Variant>;

const List = <T extends TSchema>(item: T) => Type.Array(item, { minItems: 1 });

export const SweepGrid = Type.Object(
  {
    /** Strategy plugins, each on its defaults (and `options`); or `variants`, not both. */
    strategy: Type.Optional(List(Type.String({ minLength: 1 }))),
    /** Named strategies with options of their own, each crossed with the other dimensions. */
    variants: Type.Optional(List(Variant)),
    /** Strategy options, each a list of values, crossed with each other and the strategies. */
    options: Type.Record(Type.String(), List(Type.Unknown()), { default: {} }),
    fees: Type.Optional(List(FeeChoice)),
    /** market.queue.rule: linear, log, power or power:N. */
    queue_rule: Type.Optional(List(Type.String({ minLength: 1 }))),
    /** Each call's round trip on the replay clock (ms). */
    latency_ms: Type.Optional(List(Type.Number({ minimum: 0, maximum: 60_000 }))),
  },
  strict,
);
export type SweepGrid = Static<typeof SweepGrid>;

export const SimulatedData = Type.Object(
  {
    simulated: Type.Object(
      {
        minutes: Type.Number({ exclusiveMinimum: 0, maximum: 7 * 24 * 60 }),
        seed: Type.Integer({ default: 7 }),
      },
      strict,
    ),
  },
  strict,
);
export type SimulatedData = Static<typeof SimulatedData>;

export const RANK_BY = ['pnl', 'pnl_bps'] as const;
export type RankBy = (typeof RANK_BY)[number];

export const SweepFile = Type.Object(
  {
    /** The bot's config (default: the package's config/paper.yaml). */
    config: Type.Optional(Type.String({ minLength: 1 })),
    /** A recording folder, or the simulator's default flow synthesised into the sweep's output. */
    data: Type.Union([Type.String({ minLength: 1 }), SimulatedData]),
    /** The config's pairs that trade (the grid's strategy applies to each); default all. */
    pairs: Type.Optional(List(Type.String({ minLength: 1 }))),
    grid: SweepGrid,
    /** Rank on this share of the recording, then run the top settings on the rest. */
    split: Type.Optional(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 })),
    /** How many of the best settings `split` runs on the rest. */
    top: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
    rank_by: Type.Union(
      RANK_BY.map((r) => Type.Literal(r)),
      { default: 'pnl' },
    ),
  },
  strict,
);
export type SweepFile = Static<typeof SweepFile>;

/** Why a field is refused, where TypeBox's own words would not say (a union's alternatives). */
const UNION_REASONS: Readonly<Record<string, string>> = {
  '/data': 'must be a recording folder, or { simulated: { minutes: N, seed: N } }',
  '/rank_by': `must be one of ${RANK_BY.join(', ')}`,
};

/** A sweep file read and checked, its paths resolved against its folder. */
export interface LoadedSweepFile {
  readonly file: string;
  readonly sweep: SweepFile;
  /** The config file, absolute; undefined: the package's config/paper.yaml. */
  readonly config: string | undefined;
  /** The recording folder, absolute, unless the data is simulated. */
  readonly dataDir: string | undefined;
}

export function loadSweepFile(path: string): LoadedSweepFile {
  const file = resolve(path);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InvalidInputError(
      '--sweep',
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
    );
  }
  let value: unknown;
  try {
    // Merge keys (`<<: *base`): variants that differ in one option share the rest.
    value = parseYaml(text, { merge: true });
  } catch (err) {
    throw new InvalidInputError('--sweep', `${file} is not valid YAML: ${(err as Error).message}`);
  }
  const sweep = parseSweepFile(value);
  const dir = dirname(file);
  return {
    file,
    sweep,
    config: sweep.config === undefined ? undefined : resolve(dir, sweep.config),
    dataDir: typeof sweep.data === 'string' ? resolve(dir, sweep.data) : undefined,
  };
}

/** Checks a sweep file's content, filling defaults; an error names the field (`sweep.grid...`). */
export function parseSweepFile(value: unknown): SweepFile {
  return checkValue(SweepFile, value, 'sweep', UNION_REASONS);
}

/**
 * The value with the schema's defaults, or an InvalidInputError naming the first bad field as
 * `root.a.b[2]` with TypeBox's reason.
 */
export function checkValue<S extends TSchema>(
  schema: S,
  value: unknown,
  root: string,
  reasons: Readonly<Record<string, string>> = {},
): Static<S> {
  const withDefaults: unknown = Value.Default(schema, Value.Clone(value ?? {}));
  if (Value.Check(schema, withDefaults)) return withDefaults;
  const problem = schemaProblem(schema, withDefaults);
  const reason = reasons[problem.path] ?? problem.reason;
  throw new InvalidInputError(fieldPath(root, problem.path), reason);
}

/** `sweep` + `/grid/latency_ms/1` -> `sweep.grid.latency_ms[1]`. */
export function fieldPath(root: string, pointer: string): string {
  let out = root;
  for (const part of pointer.split('/').filter((p) => p !== '')) {
    const name = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(name) ? `[${name}]` : `${out === '' ? '' : '.'}${name}`;
  }
  return out;
}
