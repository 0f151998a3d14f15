/**
 * The reads of a reader's data export that span their records (ports/reader-data.ts), written
 * once for both dialects: each a page by key.
 */
import type { ReaderDataPageQuery } from '../ports/reader-data.js';
import { COMPLAINT_COLUMNS } from './delivery-complaints.js';
import { HOLD_COLUMNS } from './holds.js';
import { raw, sql, type Sql } from './builder.js';
import { DELIVERY_COLUMNS } from './webhooks.js';

export function holdsOfReaderQuery(userId: string, query: ReaderDataPageQuery): Sql {
  return sql`SELECT ${raw(HOLD_COLUMNS)} FROM holds WHERE user_id = ${userId} AND id > ${query.afterId ?? 0}
    ORDER BY id LIMIT ${query.limit}`;
}

export function complaintsOfReaderQuery(userId: string, query: ReaderDataPageQuery): Sql {
  return sql`SELECT ${raw(COMPLAINT_COLUMNS)} FROM delivery_complaints WHERE user_id = ${userId}
    AND id > ${query.afterId ?? 0} ORDER BY id LIMIT ${query.limit}`;
}

/** The reader's next audit entries by id: the events whose deliveries a page reads. */
export function entriesOfReaderQuery(userId: string, query: ReaderDataPageQuery): Sql {
  return sql`SELECT id FROM audit_log WHERE user_id = ${userId} AND id > ${query.afterId ?? 0}
    ORDER BY id LIMIT ${query.limit}`;
}

/** The webhook deliveries of audit entries between two ids (both included), by entry and delivery. */
export function deliveriesOfEntriesQuery(userId: string, from: string, to: string): Sql {
  const columns = DELIVERY_COLUMNS.split(',').map((c) => `d.${c.trim()}`);
  return sql`SELECT ${raw(columns.join(', '))} FROM audit_log a JOIN webhook_deliveries d ON d.event_id = a.id
    WHERE a.user_id = ${userId} AND a.id >= ${from} AND a.id <= ${to}
    ORDER BY d.event_id, d.id`;
}
