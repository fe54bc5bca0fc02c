import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from '@sinclair/typebox/value';

import spread from '../../strategies/spread.js';
import avellanedaStoikov from '../../strategies/avellaneda-stoikov.js';
import glft from '../../strategies/glft.js';
import type { StrategyPlugin, TSchema } from '../../src/runner/strategy-api.js';

const plugins: readonly StrategyPlugin<TSchema, unknown>[] = [spread, avellanedaStoikov, glft];

function properties(schema: TSchema): [string, TSchema][] {
  const props = (schema as { properties?: Record<string, TSchema> }).properties;
  assert.ok(props !== undefined, 'options schema is an object');
  return Object.entries(props);
}

/** The option paths Value.Errors reports for an options object, after defaults. */
function badFields(schema: TSchema, options: Record<string, unknown>): string[] {
  const value: unknown = Value.Default(schema, Value.Clone(options));
  return [...Value.Errors(schema, value)].map((e) => e.path);
}

// Bad values every plugin must reject, with the field the error must name.
const shared: readonly [Record<string, unknown>, string][] = [
  [{ levels: 0 }, '/levels'],
  [{ levels: 21 }, '/levels'],
  [{ levels: 1.5 }, '/levels'],
  [{ order_size: '0' }, '/order_size'],
  [{ order_size: '-0.01' }, '/order_size'],
  [{ order_size: '1e-3' }, '/order_size'],
  [{ order_size: 0.01 }, '/order_size'],
  [{ min_spread_bps: -1 }, '/min_spread_bps'],
  [{ refresh_tolerance_bps: -1 }, '/refresh_tolerance_bps'],
  [{ volume_tolerance: 2 }, '/volume_tolerance'],
  [{ max_order_age_s: -5 }, '/max_order_age_s'],
  [{ post_only: 'yes' }, '/post_only'],
  [{ min_spraed_bps: 30 }, '/min_spraed_bps'],
];

const specific: Record<string, readonly [Record<string, unknown>, string][]> = {
  spread: [
    [{ reference: 'last' }, '/reference'],
    [{ inventory_target: 1.5 }, '/inventory_target'],
    [{ max_inventory_share: -0.1 }, '/max_inventory_share'],
    [{ size_multiplier: 0 }, '/size_multiplier'],
  ],
  'avellaneda-stoikov': [
    [{ risk_aversion: 0 }, '/risk_aversion'],
    [{ order_book_liquidity: 0 }, '/order_book_liquidity'],
    [{ volatility_half_life_s: 0 }, '/volatility_half_life_s'],
    [{ target_base: 'one' }, '/target_base'],
    [{ max_inventory: '0' }, '/max_inventory'],
    [{ min_samples: -1 }, '/min_samples'],
  ],
  glft: [
    [{ gamma: -0.1 }, '/gamma'],
    [{ gamma: 0 }, '/gamma'],
    [{ xi: 'half' }, '/xi'],
    [{ spread_adjustment: 0 }, '/spread_adjustment'],
    [{ skew_adjustment: -1 }, '/skew_adjustment'],
    [{ target_base: 'one' }, '/target_base'],
    [{ max_position: '0' }, '/max_position'],
    [{ window_s: 5 }, '/window_s'],
    [{ depth_bin_bps: 0 }, '/depth_bin_bps'],
    [{ depth_bins: 1 }, '/depth_bins'],
    [{ min_trades: 0 }, '/min_trades'],
    [{ min_bins: 1 }, '/min_bins'],
    [{ min_r2: 1.5 }, '/min_r2'],
    [{ volatility_half_life_s: 0 }, '/volatility_half_life_s'],
    [{ fallback_half_spread_bps: -5 }, '/fallback_half_spread_bps'],
    [{ max_half_spread_bps: 600 }, '/max_half_spread_bps'],
    [{ max_skew_bps: 500 }, '/max_skew_bps'],
  ],
};

for (const plugin of plugins) {
  void describe(`${plugin.name} options schema`, () => {
    void it('names itself in lower case and carries a semantic version', () => {
      assert.match(plugin.name, /^[a-z][a-z0-9-]*$/);
      assert.match(plugin.version, /^\d+\.\d+\.\d+$/);
      assert.ok((plugin.description ?? '').length > 0);
    });

    void it('every option has a default and a description', () => {
      const props = properties(plugin.options);
      assert.ok(props.length > 0);
      for (const [name, prop] of props) {
        assert.ok('default' in prop, `${name} has no default`);
        assert.equal(typeof prop.description, 'string', `${name} has no description`);
        assert.ok((prop.description as string).length > 10, `${name}: description too short`);
        assert.match(name, /^[a-z][a-z0-9_]*$/, `${name} is not snake_case`);
      }
    });

    void it('the defaults alone are a valid configuration and every default validates', () => {
      const defaults: unknown = Value.Default(plugin.options, {});
      assert.ok(Value.Check(plugin.options, defaults), badFields(plugin.options, {}).join(', '));
      for (const [name, prop] of properties(plugin.options)) {
        assert.ok(Value.Check(prop, prop.default), `default of ${name} fails its own schema`);
      }
    });

    for (const [bad, field] of [...shared, ...(specific[plugin.name] ?? [])]) {
      void it(`rejects ${JSON.stringify(bad)} naming ${field}`, () => {
        const value: unknown = Value.Default(plugin.options, Value.Clone(bad));
        assert.equal(Value.Check(plugin.options, value), false);
        assert.ok(
          badFields(plugin.options, bad).includes(field),
          badFields(plugin.options, bad).join(', '),
        );
      });
    }
  });
}
