import { isDecimalString } from './decimal.js';

/**
 * Small field checks for data that crosses Redis (the intent register, the order tracker): each
 * returns undefined when the value is fine, else the reason, which callers prefix with the field.
 */
export type Check = (value: unknown) => string | undefined;
export type Fields = Record<string, unknown>;

/** A value for an error message: JSON, cut at 40 characters. */
export const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

export const isFields = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const intIn =
  (min: number, max: number): Check =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max
      ? undefined
      : `must be an integer in ${min}..${max}, got ${show(v)}`;

export const finite: Check = (v) =>
  typeof v === 'number' && Number.isFinite(v)
    ? undefined
    : `must be a finite number, got ${show(v)}`;

export const text: Check = (v) =>
  typeof v === 'string' ? undefined : `must be a string, got ${show(v)}`;

export const nonEmpty: Check = (v) =>
  typeof v === 'string' && v.length > 0 ? undefined : `must be a non-empty string, got ${show(v)}`;

export const decimal: Check = (v) =>
  isDecimalString(v) ? undefined : `must be a decimal string, got ${show(v)}`;

export const bool: Check = (v) =>
  typeof v === 'boolean' ? undefined : `must be true or false, got ${show(v)}`;

export const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    values.includes(v as string)
      ? undefined
      : `must be one of ${values.join(', ')}, got ${show(v)}`;

export const nullable =
  (check: Check): Check =>
  (v) =>
    v === null ? undefined : check(v);
