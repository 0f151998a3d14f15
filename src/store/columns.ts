/**
 * How user profile fields map onto table columns, for every adapter: `address.postalCode` is
 * kept in `address_postal_code`. Derived, so the schema stays the one list of fields.
 */
import { USER_FIELDS, USER_JSON_FIELDS, type UserFields } from '../domain/user.js';

export function columnOf(field: string): string {
  return field.replace('.', '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export const USER_COLUMNS: readonly string[] = USER_FIELDS.map(columnOf);

const JSON_FIELDS = new Set(USER_JSON_FIELDS);

/** A column value as a store writes it: JSON documents as text. */
export function toColumnValue(field: string, value: unknown): unknown {
  return JSON_FIELDS.has(field) && value != null ? JSON.stringify(value) : (value ?? null);
}

/** The profile fields of a row read with `USER_COLUMNS`. */
export function fieldsOfRow(row: Record<string, unknown>): UserFields {
  const fields: UserFields = {};
  for (const field of USER_FIELDS) {
    const value = row[columnOf(field)] ?? null;
    fields[field] = JSON_FIELDS.has(field) && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return fields;
}
