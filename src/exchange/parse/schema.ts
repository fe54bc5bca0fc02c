import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ResponseParseError } from '../errors/index.js';

/**
 * A compiled validator for a response schema, built on first use so that loading the catalogue
 * costs nothing for endpoints a process never calls.
 */
export class ResultSchema<S extends TSchema> {
  readonly schema: S;
  #check: TypeCheck<S> | undefined;

  constructor(schema: S) {
    this.schema = schema;
  }

  /** Returns the value typed, or throws ResponseParseError naming the first bad path. */
  assert(
    value: unknown,
    endpoint: string,
    traceId: string | undefined,
    root = 'result',
  ): Static<S> {
    this.#check ??= TypeCompiler.Compile(this.schema);
    if (this.#check.Check(value)) return value;
    const first = this.#check.Errors(value).First();
    const path = `${root}${first?.path ?? ''}`;
    throw new ResponseParseError(endpoint, traceId, path, first?.message ?? 'unexpected shape');
  }
}
