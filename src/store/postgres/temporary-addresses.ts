/**
 * Temporary addresses on PostgreSQL. A write is one transaction that first locks the user's row:
 * writes to one reader's temporary addresses queue behind each other, and each sees those before
 * it. Every statement names the user, so on Citus the transaction stays on the user's shard.
 */
import { requireVersion } from '../ports/versions.js';
import type pg from 'pg';
import type { AuditContext } from '../../domain/audit.js';
import type { StoredTemporaryAddress } from '../../domain/temporary-address.js';
import type { IfVersion, TemporaryAddressStore } from '../port.js';
import type { Row } from '../sql/rows.js';
import {
  ADDRESS_COLUMNS,
  TEMPORARY_ADDRESS_COLUMNS,
  temporaryAddressesQuery,
  temporaryAddressQuery,
  temporaryAddressValues,
  toStoredTemporaryAddress,
  unchanged,
} from '../sql/temporary-addresses.js';
import { auditInsert, rowsOn, type PostgresDatabase } from './database.js';

const COLUMNS = ['start_date', 'end_date', ...ADDRESS_COLUMNS];

export function postgresTemporaryAddresses(database: PostgresDatabase): TemporaryAddressStore {
  const lockUser = async (client: pg.ClientBase, userId: string) =>
    ((await client.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId])).rowCount ?? 0) > 0;
  const allOn = async (client: pg.ClientBase, userId: string) =>
    (await rowsOn(client, temporaryAddressesQuery(userId))).map(toStoredTemporaryAddress);

  /** Runs `change` on the temporary address, with the user's row locked. */
  async function changing<T>(
    userId: string,
    id: string,
    ifVersion: IfVersion,
    change: (client: pg.PoolClient, current: StoredTemporaryAddress) => Promise<T>,
  ): Promise<T | undefined> {
    return database.transaction(async (client) => {
      if (!(await lockUser(client, userId))) return undefined;
      const [row] = await rowsOn(client, temporaryAddressQuery(userId, id));
      if (!row) return undefined;
      const current = toStoredTemporaryAddress(row);
      requireVersion(current.version, ifVersion);
      return change(client, current);
    });
  }

  return {
    async create(userId, plan, audit: AuditContext) {
      return database.transaction(async (client) => {
        if (!(await lockUser(client, userId))) return undefined;
        const values = plan(await allOn(client, userId));
        const params = [userId, ...temporaryAddressValues(values)];
        const record = auditInsert(params, audit, {
          action: 'create',
          resourceType: 'temporary-addresses',
          userIdColumn: 'user_id',
          from: 't',
        });
        const { rows } = await client.query(
          `WITH t AS (
             INSERT INTO temporary_addresses (user_id, ${COLUMNS.join(', ')})
             VALUES ($1, ${COLUMNS.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING ${TEMPORARY_ADDRESS_COLUMNS}
           ), a AS (${record})
           SELECT * FROM t`,
          params,
        );
        return toStoredTemporaryAddress(rows[0] as Row);
      });
    },

    async list(userId, query) {
      const [user] = await database.rows('SELECT 1 FROM users WHERE id = $1', [userId]);
      if (!user) return undefined;
      return (await database.rows(temporaryAddressesQuery(userId, query))).map(toStoredTemporaryAddress);
    },

    async get(userId, id) {
      const [row] = await database.rows(temporaryAddressQuery(userId, id));
      return row && toStoredTemporaryAddress(row);
    },

    async update(userId, id, plan, audit, ifVersion) {
      return changing(userId, id, ifVersion, async (client, current) => {
        const values = plan(current, await allOn(client, userId));
        // No version moved, no event: a client's ETag stays good, and webhooks hear of changes only.
        if (unchanged(current, values)) return current;
        const params = [userId, id, ...temporaryAddressValues(values)];
        const record = auditInsert(params, audit, {
          action: 'update',
          resourceType: 'temporary-addresses',
          userIdColumn: 'user_id',
          from: 't',
        });
        const { rows } = await client.query(
          `WITH t AS (
             UPDATE temporary_addresses SET ${COLUMNS.map((c, i) => `${c} = $${i + 3}`).join(', ')},
               version = version + 1, updated_at = now()
             WHERE user_id = $1 AND id = $2 RETURNING ${TEMPORARY_ADDRESS_COLUMNS}
           ), a AS (${record})
           SELECT * FROM t`,
          params,
        );
        return toStoredTemporaryAddress(rows[0] as Row);
      });
    },

    async delete(userId, id, check, audit, ifVersion) {
      const deleted = await changing(userId, id, ifVersion, async (client, current) => {
        check(current);
        const params: unknown[] = [userId, id];
        const record = auditInsert(params, audit, {
          action: 'delete',
          resourceType: 'temporary-addresses',
          userIdColumn: 'user_id',
          from: 't',
        });
        await client.query(
          `WITH t AS (DELETE FROM temporary_addresses WHERE user_id = $1 AND id = $2 RETURNING id, user_id),
             a AS (${record})
           SELECT 1`,
          params,
        );
        return true;
      });
      return deleted ?? false;
    },
  };
}
