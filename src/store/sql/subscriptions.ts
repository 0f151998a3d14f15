/**
 * Subscriptions as every adapter keeps them: their columns and how a row reads back.
 */
import type { License, Resource, StoredSubscription } from '../../domain/subscription.js';
import type { SubscriptionPageQuery } from '../port.js';
import { raw, sql, type Sql } from './builder.js';
import { boolean, seconds, type Row } from './rows.js';

export const SUBSCRIPTION_COLUMNS = `id, user_id, date_started, date_ended, external_identifier, license, resource,
  trial, expired, product_id, version`;

/** The same columns of the table named `alias` in a join. */
export function subscriptionColumnsOf(alias: string): string {
  return SUBSCRIPTION_COLUMNS.split(',')
    .map((c) => `${alias}.${c.trim()}`)
    .join(', ');
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
    trial: boolean(row.trial),
    expired: boolean(row.expired),
    productId: row.product_id as string | null,
    version: Number(row.version),
  };
}

/** A page of one user's subscriptions in id order, after (or, descending, before) `afterId`. */
export function subscriptionPage(userId: string, query: SubscriptionPageQuery): Sql {
  const after =
    query.afterId === undefined ? raw('') : sql`AND id ${raw(query.descending ? '<' : '>')} ${query.afterId}`;
  return sql`SELECT ${raw(SUBSCRIPTION_COLUMNS)} FROM subscriptions WHERE user_id = ${userId} ${after}
    ORDER BY id ${raw(query.descending ? 'DESC' : 'ASC')} LIMIT ${query.limit}`;
}
