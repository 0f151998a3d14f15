/**
 * Delivery complaints as every adapter keeps them: their columns (dates as day numbers), how a row
 * reads back, and the reads of a subscription's.
 */
import type { ComplaintReason, Remedy, StoredDeliveryComplaint } from '../../domain/delivery-complaint.js';
import { raw, sql, where, type Sql } from './builder.js';
import { boolean, type Row } from './rows.js';

export const COMPLAINT_COLUMNS =
  'id, user_id, subscription_id, delivery_date, reason, remedy, is_repeat, redelivery_date';

export function toStoredComplaint(row: Row): StoredDeliveryComplaint {
  return {
    id: String(row.id),
    userId: String(row.user_id),
    subscriptionId: String(row.subscription_id),
    deliveryDate: Number(row.delivery_date),
    reason: row.reason as ComplaintReason,
    remedy: row.remedy as Remedy,
    repeat: boolean(row.is_repeat),
    redeliveryDate: row.redelivery_date === null ? null : Number(row.redelivery_date),
  };
}

/** A subscription's complaints in id order: every one (for the rules), or a page. */
export function complaintsQuery(
  userId: string,
  subscriptionId: string,
  query: { afterId?: string; limit?: number } = {},
): Sql {
  const conditions = [sql`user_id = ${userId} AND subscription_id = ${subscriptionId}`];
  if (query.afterId !== undefined) conditions.push(sql`id > ${query.afterId}`);
  const limit = query.limit === undefined ? raw('') : sql`LIMIT ${query.limit}`;
  return sql`SELECT ${raw(COMPLAINT_COLUMNS)} FROM delivery_complaints ${where(conditions)} ORDER BY id ${limit}`;
}

export function complaintQuery(userId: string, subscriptionId: string, id: string): Sql {
  return sql`SELECT ${raw(COMPLAINT_COLUMNS)} FROM delivery_complaints
    WHERE user_id = ${userId} AND subscription_id = ${subscriptionId} AND id = ${id}`;
}
