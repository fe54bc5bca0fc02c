import { Value } from '@sinclair/typebox/value';
import { InvalidInputError, schemaProblem } from '../../core/index.js';
import { loadStrategy } from '../../runner/strategy-loader.js';
import type { StrategyPlugin } from '../../runner/strategy-api.js';
import type { ExpandedGrid } from './grid.js';
import { applyOverrides, configuredPairIndex, type OverridableSettings } from './overrides.js';
import { fieldPath } from './sweep-file.js';

/**
 * Refuses, before anything runs, a grid with a pair the config lacks, a strategy that does not
 * load, or a combination whose options its strategy's schema refuses: the error names the sweep
 * file's field the bad value came from (`sweep.grid.options.min_spread_bps[2]: ...`).
 */
export async function checkCombinations(
  grid: ExpandedGrid,
  settings: OverridableSettings,
  pairs: readonly string[] | undefined,
  strategiesDir: string,
): Promise<void> {
  pairs?.forEach((name, i) => configuredPairIndex(settings, name, `sweep.pairs[${i}]`));
  const plugins = new Map<string, StrategyPlugin>();
  for (const combination of grid.combinations) {
    const origin = grid.origins.get(combination.id) ?? { options: {} };
    const run = applyOverrides(settings, combination.overrides);
    for (const pair of run.pairs) {
      const configured = settings.pairs.findIndex((p) => p.pair === pair.pair);
      const name = pair.strategy.name;
      let plugin = plugins.get(name);
      if (plugin === undefined) {
        plugin = await loadStrategy(name, {
          strategiesDir,
          field: origin.strategy ?? `pairs[${configured}].strategy.name`,
        });
        plugins.set(name, plugin);
      }
      const options = Value.Default(plugin.options, Value.Clone(pair.strategy.options));
      if (Value.Check(plugin.options, options)) continue;
      const problem = schemaProblem(plugin.options, options);
      const [key = '', ...rest] = problem.path.split('/').filter((p) => p !== '');
      const field =
        origin.options[key] ??
        `pairs[${configured}].strategy.options${key === '' ? '' : `.${key}`}`;
      throw new InvalidInputError(
        fieldPath(field, rest.length === 0 ? '' : `/${rest.join('/')}`),
        `${problem.reason} (${name} on ${pair.pair}, run ${combination.id})`,
      );
    }
  }
}
