import { Type, type TSchema } from '@sinclair/typebox';

/** A decimal kept as the exchange's text (DESIGN.md §3.1); `dec()` turns it into a Decimal. */
export const Dec = Type.String();
export const Int = Type.Integer();
export const Num = Type.Number();
export const Str = Type.String();
export const Bool = Type.Boolean();
/** A part of a result the spec does not describe: kept as it came. */
export const Open = Type.Unknown();
export const OpenObject = Type.Record(Type.String(), Type.Unknown());
export const MapOf = <S extends TSchema>(value: S) => Type.Record(Type.String(), value);
export const Opt = <S extends TSchema>(s: S) => Type.Optional(s);

/** Fields shared by the private account reads that accept a wallet. */
export interface AccountScoped {
  /** Wallet account id; placement and format are not shown in the spec. */
  readonly account_id?: string;
}

export interface RebaseScoped {
  readonly rebase_multiplier?: string;
}

/** Comma-list parameters accept an array too. */
export type CommaList = string | readonly string[];
