/**
 * How user profile fields map onto table columns, for every adapter: `address.postalCode` is
 * kept in `address_postal_code`. Derived, so the schema stays the one list of fields.
 */
import { USER_FIELDS, USER_JSON_FIELDS, type UserFields } from '../../domain/user.js';

export function columnOf(field: string): string {
  return field.replace('.', '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const USER_COLUMNS: readonly string[] = USER_FIELDS.map(columnOf);

const JSON_FIELDS = new Set(USER_JSON_FIELDS);

/** Each field with its column, worked out once: rows are read by the hundred per request. */
const FIELD_COLUMNS = USER_FIELDS.map((field) => ({ field, column: columnOf(field), json: JSON_FIELDS.has(field) }));

/** A column value as a store writes it: JSON documents as text. */
export function toColumnValue(field: string, value: unknown): unknown {
  return JSON_FIELDS.has(field) && value != null ? JSON.stringify(value) : (value ?? null);
}

/** The profile fields of a row read with `USER_COLUMNS`. */
export function fieldsOfRow(row: Record<string, unknown>): UserFields {
  const fields: UserFields = {};
  for (const { field, column, json } of FIELD_COLUMNS) {
    const value = row[column] ?? null;
    fields[field] = json && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return fields;
}

/** The profile fields of a row read as an array, the fields from `start` on in `USER_COLUMNS` order. */
export function fieldsOfValues(values: readonly unknown[], start: number): UserFields {
  const fields: UserFields = {};
  for (let i = 0; i < FIELD_COLUMNS.length; i += 1) {
    const { field, json } = FIELD_COLUMNS[i]!;
    const value = values[start + i] ?? null;
    fields[field] = json && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return fields;
}
