/**
 * What every adapter's rows have in common. SQLite answers integers for ids, booleans and
 * instants and JSON text for arrays; PostgreSQL answers strings for bigint ids, booleans, Dates
 * and arrays: the helpers here read both the same.
 */
import type { Dialect } from './builder.js';

export type Row = Record<string, unknown>;

/** Epoch seconds of a stored instant: SQLite keeps the number, PostgreSQL answers a Date. */
export function seconds(value: unknown): number {
  return value instanceof Date ? Math.floor(value.getTime() / 1000) : (value as number);
}

/** SQLite keeps arrays as JSON text, PostgreSQL as arrays. */
export function array(value: unknown): string[] {
  return typeof value === 'string' ? (JSON.parse(value) as string[]) : (value as string[]);
}

/** PostgreSQL answers bigints as strings. */
export function milliseconds(value: unknown): number | null {
  return value === null ? null : Number(value);
}

/** SQLite keeps booleans as 0 and 1. */
export function boolean(value: unknown): boolean {
  return value === true || value === 1;
}

/** An instant (epoch seconds) as a parameter: SQLite keeps the number, PostgreSQL a timestamptz. */
export function instantValue(dialect: Dialect, epochSeconds: number): number | Date {
  return dialect === 'sqlite' ? epochSeconds : new Date(epochSeconds * 1000);
}
