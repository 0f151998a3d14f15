/**
 * Privacy requests on SQLite. A change is one immediate transaction: no other process writes
 * between the read of the request and the write of its change.
 */
import type { PrivacyRequestStore } from '../port.js';
import { requireVersion } from '../ports/versions.js';
import {
  forgetReaderOfPrivacyRequests,
  PRIVACY_REQUEST_WRITTEN,
  privacyRequestQuery,
  privacyRequestsQuery,
  privacyRequestValues,
  toStoredPrivacyRequest,
  unchanged,
} from '../sql/privacy-requests.js';
import type { SqliteDatabase } from './database.js';

/** What erasing a reader runs on their privacy requests, with the reader's id as its parameter. */
export const FORGET_READER_OF_PRIVACY_REQUESTS = forgetReaderOfPrivacyRequests('?', 'unixepoch()', 'max');

export function sqlitePrivacyRequests(database: SqliteDatabase): PrivacyRequestStore {
  const { db } = database;
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?').pluck();
  const insert = db.prepare(`
    INSERT INTO privacy_requests (user_id, ${PRIVACY_REQUEST_WRITTEN.join(', ')})
    VALUES (?, ${PRIVACY_REQUEST_WRITTEN.map(() => '?').join(', ')}) RETURNING id`);
  const update = db.prepare(`
    UPDATE privacy_requests SET ${PRIVACY_REQUEST_WRITTEN.map((c) => `${c} = ?`).join(', ')},
      version = version + 1, updated_at = unixepoch()
    WHERE id = ?`);

  const one = (id: string) => {
    const [row] = database.all(privacyRequestQuery(id));
    return row && toStoredPrivacyRequest(row);
  };

  return {
    async create(userId, values, audit) {
      return db
        .transaction(() => {
          if (userExists.get(userId) === undefined) return undefined;
          const { id } = insert.get(userId, ...privacyRequestValues(values)) as { id: number };
          database.record(audit, {
            action: 'create',
            resourceType: 'privacy-requests',
            resourceId: String(id),
            userId,
          });
          return one(String(id));
        })
        .immediate();
    },

    async list(query) {
      return database.all(privacyRequestsQuery(query)).map(toStoredPrivacyRequest);
    },

    async get(id) {
      return one(id);
    },

    async update(id, change, audit, ifVersion) {
      return db
        .transaction(() => {
          const current = one(id);
          if (!current) return undefined;
          requireVersion(current.version, ifVersion);
          const values = change(current);
          // No version moved, no event: a client's ETag stays good, and webhooks hear of changes only.
          if (unchanged(current, values)) return current;
          update.run(...privacyRequestValues(values), id);
          database.record(audit, {
            action: 'update',
            resourceType: 'privacy-requests',
            resourceId: id,
            userId: current.userId,
          });
          return one(id);
        })
        .immediate();
    },
  };
}
