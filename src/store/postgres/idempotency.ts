/**
 * Idempotency keys on PostgreSQL.
 */
import type { IdempotencyState, IdempotencyStore, KeptResponse } from '../port.js';
import { idempotencyState, takeOverKey } from '../sql/idempotency.js';
import type { Row } from '../sql/rows.js';
import type { PostgresDatabase } from './database.js';

/** SQLSTATE of a foreign key violation: here, a reader erased before their response could be kept. */
const FOREIGN_KEY_VIOLATION = '23503';

export function postgresIdempotency(database: PostgresDatabase): IdempotencyStore {
  async function claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState> {
    return database.transaction(async (client) => {
      const inserted = await client.query(
        `INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING RETURNING 1`,
        [scope, key, fingerprint, now],
      );
      if (inserted.rowCount === 1) return { state: 'new' };
      // Another request holds the key: read it under a row lock, so a takeover happens once.
      const { rows } = await client.query('SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2 FOR UPDATE', [
        scope,
        key,
      ]);
      let takeOver = false;
      const state = idempotencyState(rows[0] as Row, fingerprint, now, limits, () => (takeOver = true));
      if (takeOver) {
        const { text, values } = takeOverKey(scope, key, fingerprint, now).render('postgres');
        await client.query(text, values);
      }
      return state;
    });
  }

  async function finishIdempotencyKey(
    scope: string,
    key: string,
    response: KeptResponse | null,
    userId: string | null,
  ): Promise<void> {
    const release = () => database.rows('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]);
    if (!response) {
      await release();
      return;
    }
    try {
      // The foreign key holds the reader's row while this commits: erasing them waits, then takes this too.
      // On Citus no foreign key reaches the sharded users: the reader's row is looked for instead.
      const kept = await database.pool.query(
        `UPDATE idempotency_keys SET status = $1, headers = $2, body = $3, user_id = $4 WHERE scope = $5 AND key = $6
         ${database.citus ? 'AND ($4::bigint IS NULL OR $4::bigint IN (SELECT id FROM users WHERE id = $4::bigint))' : ''}`,
        [response.status, JSON.stringify(response.headers), response.body, userId, scope, key],
      );
      if (kept.rowCount === 0) await release();
    } catch (error) {
      if ((error as { code?: string }).code !== FOREIGN_KEY_VIOLATION) throw error;
      await release();
    }
  }

  return { claimKey: claimIdempotencyKey, finishKey: finishIdempotencyKey };
}
