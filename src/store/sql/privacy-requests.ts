/**
 * Privacy requests as every adapter keeps them: their columns, how a row reads back, the pages
 * of the list (by id, or by due date and id, an index seek either way), and what erasing their
 * reader does to them.
 */
import type { PrivacyRequestKind, PrivacyRequestValues, StoredPrivacyRequest } from '../../domain/privacy-request.js';
import type { PrivacyRequestPageQuery } from '../ports/privacy-requests.js';
import { raw, sql, where, type Sql } from './builder.js';
import type { Row } from './rows.js';

export const PRIVACY_REQUEST_COLUMNS =
  'id, user_id, kind, received_at, due_at, completed_at, notes, reader_erased_at, version';

/** The columns a write sets, in the order of `privacyRequestValues`. */
export const PRIVACY_REQUEST_WRITTEN = ['kind', 'received_at', 'due_at', 'completed_at', 'notes'] as const;

export function privacyRequestValues(values: PrivacyRequestValues): unknown[] {
  return [values.kind, values.receivedAt, values.dueAt, values.completedAt, values.notes];
}

export function toStoredPrivacyRequest(row: Row): StoredPrivacyRequest {
  return {
    id: String(row.id),
    userId: row.user_id === null ? null : String(row.user_id),
    kind: row.kind as PrivacyRequestKind,
    receivedAt: Number(row.received_at),
    dueAt: Number(row.due_at),
    completedAt: row.completed_at === null ? null : Number(row.completed_at),
    notes: (row.notes as string | null) ?? null,
    readerErasedAt: row.reader_erased_at === null ? null : Number(row.reader_erased_at),
    version: Number(row.version),
  };
}

/** Whether planned values are those a request has: a change that changes nothing writes nothing. */
export function unchanged(current: PrivacyRequestValues, planned: PrivacyRequestValues): boolean {
  const before = privacyRequestValues(current);
  return privacyRequestValues(planned).every((value, i) => value === before[i]);
}

export function privacyRequestsQuery(query: PrivacyRequestPageQuery): Sql {
  const conditions: Sql[] = [];
  if (query.open !== undefined) conditions.push(raw(query.open ? 'completed_at IS NULL' : 'completed_at IS NOT NULL'));
  if (query.userId !== undefined) conditions.push(sql`user_id = ${query.userId}`);
  if (query.afterId !== undefined) {
    conditions.push(
      query.byDueDate
        ? sql`(due_at, id) > (SELECT due_at, id FROM privacy_requests WHERE id = ${query.afterId})`
        : sql`id > ${query.afterId}`,
    );
  }
  const order = raw(query.byDueDate ? 'due_at, id' : 'id');
  return sql`SELECT ${raw(PRIVACY_REQUEST_COLUMNS)} FROM privacy_requests ${where(conditions)}
    ORDER BY ${order} LIMIT ${query.limit}`;
}

export function privacyRequestQuery(id: string): Sql {
  return sql`SELECT ${raw(PRIVACY_REQUEST_COLUMNS)} FROM privacy_requests WHERE id = ${id}`;
}

/**
 * Erasing a reader, in its transaction (`userId` and `now` as SQL: the reader's id, the
 * current epoch second): their requests keep no link to them and no notes, and are
 * fulfilled by the erasure if nothing had fulfilled them before.
 */
export function forgetReaderOfPrivacyRequests(userId: string, now: string, greatest: string): string {
  return `UPDATE privacy_requests SET user_id = NULL, notes = NULL, reader_erased_at = ${now},
      completed_at = coalesce(completed_at, ${greatest}(received_at, ${now})), version = version + 1
    WHERE user_id = ${userId}`;
}
