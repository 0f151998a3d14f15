/**
 * Temporary addresses on SQLite. A write is one immediate transaction: no other process writes
 * between the read of the reader's temporary addresses and the write the rules allowed.
 */
import type { AuditContext } from '../../domain/audit.js';
import type { StoredTemporaryAddress } from '../../domain/temporary-address.js';
import type { TemporaryAddressStore } from '../port.js';
import {
  ADDRESS_COLUMNS,
  temporaryAddressesQuery,
  temporaryAddressQuery,
  temporaryAddressValues,
  toStoredTemporaryAddress,
  unchanged,
} from '../sql/temporary-addresses.js';
import { requireVersion } from '../ports/versions.js';
import type { SqliteDatabase } from './database.js';

export function sqliteTemporaryAddresses(database: SqliteDatabase): TemporaryAddressStore {
  const { db } = database;
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?').pluck();
  const columns = ['start_date', 'end_date', ...ADDRESS_COLUMNS];
  const insert = db.prepare(`
    INSERT INTO temporary_addresses (user_id, ${columns.join(', ')})
    VALUES (?, ${columns.map(() => '?').join(', ')}) RETURNING id`);
  const update = db.prepare(`
    UPDATE temporary_addresses SET ${columns.map((c) => `${c} = ?`).join(', ')}, version = version + 1,
      updated_at = unixepoch()
    WHERE user_id = ? AND id = ?`);
  const remove = db.prepare('DELETE FROM temporary_addresses WHERE user_id = ? AND id = ?');

  const one = (userId: string, id: string) => {
    const [row] = database.all(temporaryAddressQuery(userId, id));
    return row && toStoredTemporaryAddress(row);
  };
  const all = (userId: string) => database.all(temporaryAddressesQuery(userId)).map(toStoredTemporaryAddress);

  /** Runs `change` on the temporary address and the reader's others, in one immediate transaction. */
  function changing<T>(
    userId: string,
    id: string,
    ifVersion: readonly number[] | undefined,
    change: (current: StoredTemporaryAddress) => T,
  ): T | undefined {
    return db
      .transaction(() => {
        const current = one(userId, id);
        if (!current) return undefined;
        requireVersion(current.version, ifVersion);
        return change(current);
      })
      .immediate();
  }

  return {
    async create(userId, plan, audit: AuditContext) {
      return db
        .transaction(() => {
          if (userExists.get(userId) === undefined) return undefined;
          const values = plan(all(userId));
          const { id } = insert.get(userId, ...temporaryAddressValues(values)) as { id: number };
          database.record(audit, {
            action: 'create',
            resourceType: 'temporary-addresses',
            resourceId: String(id),
            userId,
          });
          return one(userId, String(id));
        })
        .immediate();
    },

    async list(userId, query) {
      return db.transaction(() => {
        if (userExists.get(userId) === undefined) return undefined;
        return database.all(temporaryAddressesQuery(userId, query)).map(toStoredTemporaryAddress);
      })();
    },

    async get(userId, id) {
      return one(userId, id);
    },

    async update(userId, id, plan, audit, ifVersion) {
      return changing(userId, id, ifVersion, (current) => {
        const values = plan(current, all(userId));
        // No version moved, no event: a client's ETag stays good, and webhooks hear of changes only.
        if (unchanged(current, values)) return current;
        update.run(...temporaryAddressValues(values), userId, id);
        database.record(audit, { action: 'update', resourceType: 'temporary-addresses', resourceId: id, userId });
        return one(userId, id);
      });
    },

    async delete(userId, id, check, audit, ifVersion) {
      const deleted = changing(userId, id, ifVersion, (current) => {
        check(current);
        remove.run(userId, id);
        database.record(audit, { action: 'delete', resourceType: 'temporary-addresses', resourceId: id, userId });
        return true;
      });
      return deleted ?? false;
    },
  };
}
