/**
 * What every adapter reads of a subscription for the rules of print (its term, what it and its
 * product give, and their delivery days), and the term's end moved by a hold or a complaint.
 */
import type { PrintTerms } from '../../domain/print.js';
import type { Resource } from '../../domain/subscription.js';
import { EVERY_DAY } from '../../domain/delivery-days.js';
import { sql, type Sql } from './builder.js';
import { seconds, type Row } from './rows.js';

/** One subscription of a user with its product's resource and delivery days (a reference table on Citus). */
export function printTermsQuery(userId: string, subscriptionId: string): Sql {
  return sql`SELECT s.id, s.date_started, s.date_ended, s.resource, s.delivery_days,
      p.resource AS product_resource, p.delivery_days AS product_days
    FROM subscriptions s LEFT JOIN products p ON p.id = s.product_id
    WHERE s.user_id = ${userId} AND s.id = ${subscriptionId}`;
}

export function toPrintTerms(row: Row): PrintTerms {
  return {
    id: String(row.id),
    dateStarted: seconds(row.date_started),
    dateEnded: row.date_ended === null ? null : seconds(row.date_ended),
    resource: row.resource as Resource | null,
    deliveryDays: row.delivery_days === null ? null : Number(row.delivery_days),
    productResource: (row.product_resource ?? null) as Resource | null,
    productDays: row.product_days === null || row.product_days === undefined ? EVERY_DAY : Number(row.product_days),
  };
}

/** The audit of a term's end moved: an update of the subscription that sent `dateEnded`. */
export const TERM_MOVED = ['dateEnded'] as const;
