/**
 * Rows as the adapters read them, turned into the port's records. SQLite answers integers for
 * ids, booleans and instants and JSON text for arrays; PostgreSQL answers strings for bigint
 * ids, booleans, Dates and arrays: both read the same here.
 */
import type { License, Resource, StoredSubscription } from '../domain/subscription.js';
import { fieldsOfRow } from './columns.js';
import type { StoredUser } from './port.js';

export type Row = Record<string, unknown>;

function seconds(value: unknown): number {
  return value instanceof Date ? Math.floor(value.getTime() / 1000) : (value as number);
}

export function toStoredUser(row: Row): StoredUser {
  const newsletters = row.newsletters;
  return {
    id: String(row.id),
    email: row.email as string,
    fields: fieldsOfRow(row),
    newsletters: typeof newsletters === 'string' ? (JSON.parse(newsletters) as string[]) : (newsletters as string[]),
  };
}

export function toStoredSubscription(row: Row): StoredSubscription {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    dateStarted: seconds(row.date_started),
    dateEnded: row.date_ended === null ? null : seconds(row.date_ended),
    externalIdentifier: row.external_identifier as string | null,
    license: row.license as License | null,
    resource: row.resource as Resource | null,
    trial: row.trial === true || row.trial === 1,
    expired: row.expired === true || row.expired === 1,
    productId: row.product_id as string | null,
  };
}
