/**
 * Temporary addresses as every adapter keeps them: their columns (dates as day numbers, the
 * address in the columns a user's has), how a row reads back, and the reads of a user's.
 */
import { ADDRESS_FIELDS, type DeliveryAddress } from '../../domain/delivery.js';
import type { StoredTemporaryAddress, TemporaryAddressValues } from '../../domain/temporary-address.js';
import { raw, sql, where, type Sql } from './builder.js';
import type { Row } from './rows.js';
import { columnOf } from './users.js';

/** The column of each address field, as users have them (`address_postal_code`). */
export const ADDRESS_COLUMNS: readonly string[] = ADDRESS_FIELDS.map((field) => columnOf(`address.${field}`));

export const TEMPORARY_ADDRESS_COLUMNS = `id, user_id, start_date, end_date, ${ADDRESS_COLUMNS.join(', ')}, version`;

/** An address read from the address columns of a row. */
export function addressOf(row: Row): DeliveryAddress {
  return Object.fromEntries(
    ADDRESS_FIELDS.map((field, i) => [field, (row[ADDRESS_COLUMNS[i] as string] ?? null) as string | null]),
  ) as DeliveryAddress;
}

export function toStoredTemporaryAddress(row: Row): StoredTemporaryAddress {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    startDate: Number(row.start_date),
    endDate: Number(row.end_date),
    address: addressOf(row),
    version: Number(row.version),
  };
}

/** A temporary address's values in column order: start, end, then the address columns. */
export function temporaryAddressValues(values: TemporaryAddressValues): unknown[] {
  return [values.startDate, values.endDate, ...ADDRESS_FIELDS.map((field) => values.address[field])];
}

/** Whether planned values are those a temporary address has: a change that changes nothing writes nothing. */
export function unchanged(current: TemporaryAddressValues, planned: TemporaryAddressValues): boolean {
  const before = temporaryAddressValues(current);
  return temporaryAddressValues(planned).every((value, i) => value === before[i]);
}

/** A user's temporary addresses in id order: every one (for the rules), or a page. */
export function temporaryAddressesQuery(userId: string, query: { afterId?: string; limit?: number } = {}): Sql {
  const conditions = [sql`user_id = ${userId}`];
  if (query.afterId !== undefined) conditions.push(sql`id > ${query.afterId}`);
  const limit = query.limit === undefined ? raw('') : sql`LIMIT ${query.limit}`;
  return sql`SELECT ${raw(TEMPORARY_ADDRESS_COLUMNS)} FROM temporary_addresses ${where(conditions)} ORDER BY id ${limit}`;
}

export function temporaryAddressQuery(userId: string, id: string): Sql {
  return sql`SELECT ${raw(TEMPORARY_ADDRESS_COLUMNS)} FROM temporary_addresses WHERE user_id = ${userId} AND id = ${id}`;
}
