import { InvalidInputError } from '../../core/index.js';
import { DEFAULT_PAIRS } from '../../sim/defaults.js';
import type { ReplayFees } from '../replay/index.js';

/** A strategy for the run's pairs instead of the configured one, or other options for it. */
export interface StrategyOverride {
  /** The plugin; undefined keeps each pair's configured one. */
  readonly name?: string;
  /**
   * Laid over the pair's configured options when the plugin is the configured one; alone (on the
   * plugin's defaults) when it is another, whose options the configured ones are not.
   */
  readonly options: Readonly<Record<string, unknown>>;
}

/** What one backtest changes of its config: a sweep's combination, or `makerd backtest`'s flags. */
export interface RunOverrides {
  /** The config's pairs that trade (as the config or the recording names them); default all. */
  readonly pairs?: readonly string[];
  readonly strategy?: StrategyOverride;
  readonly fees?: ReplayFees;
  /** `market.queue.rule`: the live queue estimator's and the replay's fill model's rule. */
  readonly queueRule?: string;
  readonly latencyMs?: number;
}

interface ConfiguredPair {
  readonly pair: string;
  readonly strategy: { readonly name: string; readonly options: Readonly<Record<string, unknown>> };
}

/** What the overrides touch of the bot's settings (the CLI's BotSettings has it). */
export interface OverridableSettings {
  readonly pairs: readonly ConfiguredPair[];
  readonly market: { readonly queue: { readonly rule: string } };
}

/** The settings with the overrides applied (the strategy to every pair that trades). */
export function applyOverrides<S extends OverridableSettings>(settings: S, o: RunOverrides): S {
  type Pair = S['pairs'][number];
  const all: readonly Pair[] = settings.pairs;
  const chosen =
    o.pairs === undefined
      ? all
      : o.pairs.map((name, i) => all[configuredPairIndex(settings, name, `pairs[${i}]`)] as Pair);
  const strategy = o.strategy;
  const pairs =
    strategy === undefined
      ? chosen
      : chosen.map((p) => ({ ...p, strategy: strategyFor(p, strategy) }));
  const queue =
    o.queueRule === undefined
      ? {}
      : { market: { ...settings.market, queue: { ...settings.market.queue, rule: o.queueRule } } };
  return { ...settings, pairs, ...queue };
}

/** The strategy a pair runs under the override. */
export function strategyFor(
  pair: ConfiguredPair,
  override: StrategyOverride,
): { name: string; options: Record<string, unknown> } {
  const name = override.name ?? pair.strategy.name;
  const base = name === pair.strategy.name ? pair.strategy.options : {};
  return { name, options: { ...base, ...override.options } };
}

/** The pair's altname when the simulator knows it (a recording's folder name), else the name. */
export function altnameOf(name: string): string {
  return DEFAULT_PAIRS.find((p) => [p.id, p.altname, p.wsname].includes(name))?.altname ?? name;
}

/** The index of the config's pair `name` names (its own spelling, or id, altname or wsname). */
export function configuredPairIndex(
  settings: OverridableSettings,
  name: string,
  field: string,
): number {
  const aliases = (n: string): readonly string[] => {
    const known = DEFAULT_PAIRS.find((p) => [p.id, p.altname, p.wsname].includes(n));
    return known === undefined ? [n] : [known.id, known.altname, known.wsname];
  };
  const wanted = aliases(name);
  const index = settings.pairs.findIndex((p) => aliases(p.pair).some((a) => wanted.includes(a)));
  if (index < 0) {
    throw new InvalidInputError(
      field,
      `${name} is not a pair of the config (it has ${settings.pairs.map((p) => p.pair).join(', ')})`,
    );
  }
  return index;
}
