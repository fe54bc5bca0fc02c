import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { closestName } from './did-you-mean.js';
import { InvalidInputError } from './errors.js';

/**
 * Checks a configuration value against its schema, filling in the schema's defaults, and fails
 * with the first bad field named as a dotted path (`accounts.0.tier`) and the reason, so an
 * operator can fix a YAML file without reading code: the values a choice allows, the option a
 * misspelt key probably meant, the quotes a number needs where text is expected.
 */
export function parseWithSchema<S extends TSchema>(
  schema: S,
  value: unknown,
  root: string,
): Static<S> {
  const withDefaults = Value.Default(schema, Value.Clone(value ?? {}));
  if (Value.Check(schema, withDefaults)) return withDefaults;
  const problem = schemaProblem(schema, withDefaults);
  const path = problem.path.split('/').filter((p) => p !== '');
  const field = [root, ...path].filter((p) => p !== '').join('.');
  throw new InvalidInputError(field, problem.reason);
}

/** Where (a JSON pointer under the value checked) and why. */
export interface SchemaProblem {
  readonly path: string;
  readonly reason: string;
}

/** The first thing wrong with a value that fails its schema, explained as parseWithSchema does. */
export function schemaProblem(schema: TSchema, value: unknown): SchemaProblem {
  const errors = [...Value.Errors(schema, value)];
  const first = errors[0];
  if (first === undefined) return { path: '', reason: 'invalid value' };
  return explained(misspeltRequired(first, errors) ?? first);
}

/**
 * A required key written wrong (`stratgy:`) fails first as the key missing, which names neither
 * the typo nor the fix: the unknown key beside it that spells it closely is the error to show.
 */
function misspeltRequired(
  first: ValueError,
  errors: readonly ValueError[],
): ValueError | undefined {
  if (first.type !== ValueErrorType.ObjectRequiredProperty) return undefined;
  const { parent, key } = splitPath(first.path);
  return errors.find((e) => {
    if (e.type !== ValueErrorType.ObjectAdditionalProperties) return false;
    const unknown = splitPath(e.path);
    return unknown.parent === parent && closestName(unknown.key, [key]) !== undefined;
  });
}

function splitPath(path: string): { parent: string; key: string } {
  const cut = path.lastIndexOf('/');
  return { parent: path.slice(0, cut), key: path.slice(cut + 1) };
}

const got = (value: unknown): string => `got ${JSON.stringify(value) ?? 'nothing'}`;

function explained(e: ValueError): SchemaProblem {
  switch (e.type) {
    case ValueErrorType.Union:
      return unionProblem(e);
    case ValueErrorType.ObjectAdditionalProperties:
      return { path: e.path, reason: unknownKey(e) };
    case ValueErrorType.String:
      // YAML reads 0.01 as a float; amounts are decimal strings so that no digit is lost.
      if (typeof e.value === 'number') {
        return {
          path: e.path,
          reason: `expected a string, got the number ${e.value}: quote it ('${e.value}')`,
        };
      }
      break;
    default:
      break;
  }
  return { path: e.path, reason: `${e.message.toLowerCase()}, ${got(e.value)}` };
}

type Schema = TSchema & {
  readonly const?: unknown;
  readonly anyOf?: readonly Schema[];
  readonly properties?: Readonly<Record<string, Schema>>;
};

/**
 * A choice of values lists them. A choice of sections told apart by one field (`from: env` or
 * `from: simulator`) is checked as the section that field names, or the field's values listed.
 */
function unionProblem(e: ValueError): SchemaProblem {
  const members = (e.schema as Schema).anyOf ?? [];
  const fallback = { path: e.path, reason: `expected one of its forms, ${got(e.value)}` };
  if (members.length > 0 && members.every((m) => 'const' in m)) {
    return { path: e.path, reason: `must be one of ${choices(members)}, ${got(e.value)}` };
  }
  const tag = tagOf(members);
  if (tag === undefined || typeof e.value !== 'object' || e.value === null) return fallback;
  const given = (e.value as Record<string, unknown>)[tag];
  const member = members.find((m) => m.properties?.[tag]?.const === given);
  if (member === undefined) {
    const tags = members.map((m) => m.properties?.[tag] as Schema);
    return { path: `${e.path}/${tag}`, reason: `must be one of ${choices(tags)}, ${got(given)}` };
  }
  const inner = schemaProblem(member, Value.Default(member, Value.Clone(e.value)));
  return { path: `${e.path}${inner.path}`, reason: inner.reason };
}

const choices = (literals: readonly Schema[]): string =>
  literals.map((l) => String(l.const)).join(', ');

/** The property every member of a union of objects fixes to a value of its own. */
function tagOf(members: readonly Schema[]): string | undefined {
  const first = members[0];
  if (first?.[Kind] !== 'Object') return undefined;
  return Object.keys(first.properties ?? {}).find((key) =>
    members.every((m) => m.properties?.[key] !== undefined && 'const' in m.properties[key]),
  );
}

function unknownKey(e: ValueError): string {
  const key = e.path.split('/').at(-1) ?? '';
  const known = Object.keys((e.schema as Schema).properties ?? {});
  const close = closestName(key, known);
  if (close !== undefined) return `unknown option; did you mean ${close}?`;
  return `unknown option; the options here are ${known.join(', ')}`;
}
