import { InvalidInputError } from '../../core/index.js';
import { parseQueueRule } from '../../market/index.js';
import type { ReplayFees } from '../replay/index.js';
import type { RunOverrides } from './overrides.js';
import type { FeeChoice, SweepFile } from './sweep-file.js';

/** A grid value as the results table shows it. */
export type SweepValue = string | number | boolean;

/** One thing the grid varies: `strategy`, an option's name, `fees`, `queue_rule`, `latency_ms`. */
export interface Dimension {
  readonly key: string;
  readonly values: readonly SweepValue[];
}

/** One point of the grid: its values (by dimension) and what its backtest changes. */
export interface Combination {
  /** Zero-padded position in the grid (001, 002, ...): the folder of its run's report. */
  readonly id: string;
  readonly values: Readonly<Record<string, SweepValue>>;
  readonly overrides: RunOverrides;
}

/** Where a combination's parts came from in the sweep file, for an error naming the field. */
export interface CombinationOrigin {
  /** The field naming the strategy plugin, when the grid sets one. */
  readonly strategy?: string;
  /** Each option's field. */
  readonly options: Readonly<Record<string, string>>;
}

export interface ExpandedGrid {
  readonly dimensions: readonly Dimension[];
  readonly combinations: readonly Combination[];
  /** By combination id. */
  readonly origins: ReadonlyMap<string, CombinationOrigin>;
}

/** A sweep this large is a mistake in the file, not a plan (each point is a full backtest). */
export const MAX_COMBINATIONS = 10_000;

const FIXED_KEYS = ['strategy', 'fees', 'queue_rule', 'latency_ms'];

interface Choice {
  readonly value: SweepValue;
  readonly strategy?: { readonly name?: string; readonly field?: string };
  readonly options?: Readonly<Record<string, unknown>>;
  readonly optionFields?: Readonly<Record<string, string>>;
  readonly fees?: ReplayFees;
  readonly queueRule?: string;
  readonly latencyMs?: number;
}

/**
 * Every combination of the grid's dimensions, in file order (the strategy varies slowest, latency
 * fastest). A dimension with one value is still a column of the results.
 */
export function expandGrid(sweep: SweepFile): ExpandedGrid {
  const grid = sweep.grid;
  const dims: { key: string; choices: Choice[] }[] = [];
  if (grid.strategy !== undefined && grid.variants !== undefined) {
    throw new InvalidInputError('sweep.grid', 'give strategy or variants, not both');
  }
  if (grid.variants !== undefined) {
    const seen = new Set<string>();
    dims.push({
      key: 'strategy',
      choices: grid.variants.map((v, j) => {
        const field = `sweep.grid.variants[${j}]`;
        const name = v.name ?? v.strategy ?? 'configured';
        if (seen.has(name)) {
          throw new InvalidInputError(
            `${field}.name`,
            `${name} names two variants; give each its own name`,
          );
        }
        seen.add(name);
        return {
          value: name,
          strategy: {
            ...(v.strategy === undefined ? {} : { name: v.strategy }),
            field: `${field}.strategy`,
          },
          options: v.options,
          optionFields: Object.fromEntries(
            Object.keys(v.options).map((k) => [k, `${field}.options.${k}`]),
          ),
        };
      }),
    });
  } else if (grid.strategy !== undefined) {
    dims.push({
      key: 'strategy',
      choices: grid.strategy.map((name, i) => ({
        value: name,
        strategy: { name, field: `sweep.grid.strategy[${i}]` },
      })),
    });
  }
  for (const [key, values] of Object.entries(grid.options)) {
    if (FIXED_KEYS.includes(key)) {
      throw new InvalidInputError(
        `sweep.grid.options.${key}`,
        `an option cannot be named ${key}: that is a dimension of its own`,
      );
    }
    dims.push({
      key,
      choices: values.map((value, i) => ({
        value: tableValue(value),
        options: { [key]: value },
        optionFields: { [key]: `sweep.grid.options.${key}[${i}]` },
      })),
    });
  }
  if (grid.fees !== undefined) {
    dims.push({
      key: 'fees',
      choices: grid.fees.map((f) => ({ value: feeLabel(f), fees: replayFees(f) })),
    });
  }
  if (grid.queue_rule !== undefined) {
    dims.push({
      key: 'queue_rule',
      choices: grid.queue_rule.map((rule, i) => {
        parseQueueRule(rule, `sweep.grid.queue_rule[${i}]`);
        return { value: rule, queueRule: rule };
      }),
    });
  }
  if (grid.latency_ms !== undefined) {
    dims.push({
      key: 'latency_ms',
      choices: grid.latency_ms.map((ms) => ({ value: ms, latencyMs: ms })),
    });
  }
  const count = dims.reduce((n, d) => n * d.choices.length, 1);
  if (count > MAX_COMBINATIONS) {
    throw new InvalidInputError(
      'sweep.grid',
      `${count} combinations; a sweep runs at most ${MAX_COMBINATIONS}`,
    );
  }
  const width = Math.max(3, String(count).length);
  const combinations: Combination[] = [];
  const origins = new Map<string, CombinationOrigin>();
  for (let n = 0; n < count; n++) {
    const picked: { key: string; choice: Choice }[] = [];
    let rest = n;
    for (let d = dims.length - 1; d >= 0; d--) {
      const dim = dims[d] as (typeof dims)[number];
      picked.unshift({ key: dim.key, choice: dim.choices[rest % dim.choices.length] as Choice });
      rest = Math.floor(rest / dim.choices.length);
    }
    const id = String(n + 1).padStart(width, '0');
    const combination = combine(id, picked, sweep.pairs);
    combinations.push(combination.combination);
    origins.set(id, combination.origin);
  }
  return {
    dimensions: dims.map((d) => ({ key: d.key, values: d.choices.map((c) => c.value) })),
    combinations,
    origins,
  };
}

function combine(
  id: string,
  picked: readonly { key: string; choice: Choice }[],
  pairs: readonly string[] | undefined,
): { combination: Combination; origin: CombinationOrigin } {
  let strategyName: string | undefined;
  let strategyField: string | undefined;
  let options: Record<string, unknown> | undefined;
  const optionFields: Record<string, string> = {};
  let fees: ReplayFees | undefined;
  let queueRule: string | undefined;
  let latencyMs: number | undefined;
  for (const { choice } of picked) {
    if (choice.strategy !== undefined) {
      strategyName = choice.strategy.name;
      strategyField = choice.strategy.field;
    }
    if (choice.options !== undefined) options = { ...options, ...choice.options };
    Object.assign(optionFields, choice.optionFields);
    fees = choice.fees ?? fees;
    queueRule = choice.queueRule ?? queueRule;
    latencyMs = choice.latencyMs ?? latencyMs;
  }
  const setsStrategy = strategyName !== undefined || options !== undefined;
  const overrides: RunOverrides = {
    ...(pairs === undefined ? {} : { pairs }),
    ...(setsStrategy
      ? {
          strategy: {
            ...(strategyName === undefined ? {} : { name: strategyName }),
            options: options ?? {},
          },
        }
      : {}),
    ...(fees === undefined ? {} : { fees }),
    ...(queueRule === undefined ? {} : { queueRule }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
  };
  return {
    combination: {
      id,
      values: Object.fromEntries(picked.map(({ key, choice }) => [key, choice.value])),
      overrides,
    },
    origin: {
      ...(strategyField === undefined ? {} : { strategy: strategyField }),
      options: optionFields,
    },
  };
}

/** How a fee choice reads in the results: `maker 0 %, taker 0.4 %`, `volume 1000000 USD`. */
export function feeLabel(f: FeeChoice): string {
  return [
    ...(f.maker === undefined ? [] : [`maker ${f.maker} %`]),
    ...(f.taker === undefined ? [] : [`taker ${f.taker} %`]),
    ...(f.volume_usd === undefined ? [] : [`volume ${f.volume_usd} USD`]),
  ].join(', ');
}

function replayFees(f: FeeChoice): ReplayFees {
  return {
    ...(f.maker === undefined ? {} : { makerPct: f.maker }),
    ...(f.taker === undefined ? {} : { takerPct: f.taker }),
    ...(f.volume_usd === undefined ? {} : { volumeUsd: f.volume_usd }),
  };
}

function tableValue(value: unknown): SweepValue {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? value
    : JSON.stringify(value);
}
