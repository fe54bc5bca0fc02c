/**
 * Runs a strategy plugin the way the runner does, minus the I/O: options get the schema's defaults
 * and must validate, state is carried from one quote call to the next.
 */
import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';
import type {
  DesiredQuote,
  MarketSnapshot,
  Static,
  StrategyContext,
  StrategyPlugin,
  TSchema,
} from '../../src/runner/strategy-api.js';
import { PAIR } from './snapshot-fixture.js';

export function contextFor<Schema extends TSchema, S>(
  plugin: StrategyPlugin<Schema, S>,
  options: Record<string, unknown> = {},
): StrategyContext<Static<Schema>> {
  const withDefaults: unknown = Value.Default(plugin.options, Value.Clone(options));
  if (!Value.Check(plugin.options, withDefaults)) {
    const first = Value.Errors(plugin.options, withDefaults).First();
    assert.fail(`bad options in test row: ${first?.path ?? ''} ${first?.message ?? ''}`);
  }
  return { pair: PAIR, options: withDefaults, log: { info: () => {}, warn: () => {} } };
}

/** Feeds the snapshots in order, carrying state; returns the last quotes and every state. */
export function runSequence<Schema extends TSchema, S>(
  plugin: StrategyPlugin<Schema, S>,
  options: Record<string, unknown>,
  snapshots: readonly MarketSnapshot[],
): { quotes: readonly DesiredQuote[]; states: S[] } {
  const ctx = contextFor(plugin, options);
  let state = plugin.init(ctx);
  const states: S[] = [];
  let quotes: readonly DesiredQuote[] = [];
  for (const snap of snapshots) {
    const result = plugin.quote(snap, state, ctx);
    quotes = result.quotes;
    state = result.state ?? state;
    states.push(state);
  }
  return { quotes, states };
}

export interface QuoteRow {
  readonly side: 'buy' | 'sell';
  readonly level: number;
  readonly price: string;
  readonly volume: string;
}

/** Quotes as exact decimal strings, sorted by side (buy first) then level, for deepEqual. */
export function rows(quotes: readonly DesiredQuote[]): QuoteRow[] {
  return quotes
    .map((q) => ({
      side: q.side,
      level: q.level,
      price: q.price.toFixed(),
      volume: q.volume.toFixed(),
    }))
    .sort((a, b) => (a.side === b.side ? a.level - b.level : a.side === 'buy' ? -1 : 1));
}
