/**
 * Privacy requests on PostgreSQL: each write one statement, the change and its audit entry
 * together (a data-modifying CTE); a change reads the request under a row lock first. On Citus the
 * table is local to the coordinator (citus.ts): it is listed across readers, by due date.
 */
import type { PrivacyRequestStore } from '../port.js';
import { requireVersion } from '../ports/versions.js';
import type { Row } from '../sql/rows.js';
import {
  forgetReaderOfPrivacyRequests,
  PRIVACY_REQUEST_COLUMNS,
  PRIVACY_REQUEST_WRITTEN,
  privacyRequestQuery,
  privacyRequestsQuery,
  privacyRequestValues,
  toStoredPrivacyRequest,
  unchanged,
} from '../sql/privacy-requests.js';
import { auditInsert, type PostgresDatabase } from './database.js';

/**
 * What erasing a reader at `now` (epoch seconds) runs on their privacy requests, beside the
 * deletion of the user (`d`). The instant is written in, a whole number: Citus refuses a function
 * such as now() inside coalesce in a statement that writes.
 */
export function forgetReaderOfPrivacyRequestsAt(now: number): string {
  return forgetReaderOfPrivacyRequests('(SELECT id FROM d)', String(Math.trunc(now)), 'greatest');
}

/** The types of the columns a write sets, in order: a value selected into them says its type. */
const WRITTEN_TYPES = ['text', 'bigint', 'bigint', 'bigint', 'text'] as const;

export function postgresPrivacyRequests(database: PostgresDatabase): PrivacyRequestStore {
  return {
    async create(userId, values, audit) {
      const params: unknown[] = [userId, ...privacyRequestValues(values)];
      const record = auditInsert(params, audit, {
        action: 'create',
        resourceType: 'privacy-requests',
        userIdColumn: 'user_id',
        from: 'p',
      });
      const rows = await database.rows(
        `WITH u AS (SELECT id FROM users WHERE id = $1), p AS (
           INSERT INTO privacy_requests (user_id, ${PRIVACY_REQUEST_WRITTEN.join(', ')})
           SELECT u.id, ${PRIVACY_REQUEST_WRITTEN.map((_, i) => `$${i + 2}::${WRITTEN_TYPES[i]}`).join(', ')} FROM u
           RETURNING ${PRIVACY_REQUEST_COLUMNS}
         ), a AS (${record})
         SELECT * FROM p`,
        params,
      );
      return rows[0] && toStoredPrivacyRequest(rows[0]);
    },

    async list(query) {
      return (await database.rows(privacyRequestsQuery(query))).map(toStoredPrivacyRequest);
    },

    async get(id) {
      const [row] = await database.rows(privacyRequestQuery(id));
      return row && toStoredPrivacyRequest(row);
    },

    async update(id, change, audit, ifVersion) {
      return database.transaction(async (client) => {
        const { rows } = await client.query(
          `SELECT ${PRIVACY_REQUEST_COLUMNS} FROM privacy_requests WHERE id = $1 FOR UPDATE`,
          [id],
        );
        if (!rows[0]) return undefined;
        const current = toStoredPrivacyRequest(rows[0] as Row);
        requireVersion(current.version, ifVersion);
        const values = change(current);
        // No version moved, no event: a client's ETag stays good, and webhooks hear of changes only.
        if (unchanged(current, values)) return current;
        const params: unknown[] = [id, ...privacyRequestValues(values)];
        const record = auditInsert(params, audit, {
          action: 'update',
          resourceType: 'privacy-requests',
          userIdColumn: 'user_id',
          from: 'p',
        });
        const updated = await client.query(
          `WITH p AS (
             UPDATE privacy_requests SET ${PRIVACY_REQUEST_WRITTEN.map((c, i) => `${c} = $${i + 2}`).join(', ')},
               version = version + 1, updated_at = now()
             WHERE id = $1 RETURNING ${PRIVACY_REQUEST_COLUMNS}
           ), a AS (${record})
           SELECT * FROM p`,
          params,
        );
        return toStoredPrivacyRequest(updated.rows[0] as Row);
      });
    },
  };
}
