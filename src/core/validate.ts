import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { InvalidInputError } from './errors.js';

/**
 * Checks a configuration value against its schema, filling in the schema's defaults, and fails
 * with the first bad field named as a dotted path (`accounts.0.tier`) and the reason, so an
 * operator can fix a YAML file without reading code.
 */
export function parseWithSchema<S extends TSchema>(
  schema: S,
  value: unknown,
  root: string,
): Static<S> {
  const withDefaults = Value.Default(schema, Value.Clone(value ?? {}));
  if (Value.Check(schema, withDefaults)) return withDefaults;
  const first = Value.Errors(schema, withDefaults).First();
  const path = (first?.path ?? '').split('/').filter((p) => p !== '');
  const field = [root, ...path].filter((p) => p !== '').join('.');
  const got = first === undefined ? '' : `, got ${JSON.stringify(first.value) ?? 'nothing'}`;
  throw new InvalidInputError(field, `${first?.message.toLowerCase() ?? 'invalid value'}${got}`);
}
