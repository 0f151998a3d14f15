/**
 * Users as every adapter keeps them: how profile fields map onto columns (`address.postalCode`
 * is kept in `address_postal_code`, derived so that the schema stays the one list of fields),
 * how rows read back, and the filters and paging of the list, written once for both dialects.
 */
import { USER_FIELDS, USER_JSON_FIELDS, type UserFields } from '../../domain/user.js';
import type { StoredUser, UserListQuery } from '../port.js';
import { raw, sql, where, type Sql } from './builder.js';
import { array, seconds, type Row } from './rows.js';

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
export function fieldsOfRow(row: Row): UserFields {
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

export function toStoredUser(row: Row): StoredUser {
  return {
    id: String(row.id),
    email: row.email as string,
    fields: fieldsOfRow(row),
    newsletters: array(row.newsletters),
    lastSignInAt: row.last_sign_in_at == null ? null : seconds(row.last_sign_in_at),
    version: Number(row.version),
  };
}

/**
 * The ids of a page of the user list, filtered, in order: the adapters read the page's rows for
 * these ids only, since OFFSET would otherwise compute every column of each row it skips.
 */
export function userPageIds(query: UserListQuery): Sql {
  const conditions: Sql[] = [];
  if (query.email && 'address' in query.email) conditions.push(sql`email_lower = ${query.email.address.toLowerCase()}`);
  else if (query.email) conditions.push(sql`email_domain = ${query.email.domain.toLowerCase()}`);
  if (query.circulationNumber !== undefined) conditions.push(sql`circulation_number = ${query.circulationNumber}`);
  if (query.afterId !== undefined) conditions.push(sql`id ${raw(query.descending ? '<' : '>')} ${query.afterId}`);
  return sql`SELECT id FROM users ${where(conditions)} ORDER BY id ${userOrder(query)} LIMIT ${query.limit} OFFSET ${query.offset}`;
}

export function userOrder(query: UserListQuery): Sql {
  return raw(query.descending ? 'DESC' : 'ASC');
}
