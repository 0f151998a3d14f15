/**
 * Idempotency keys on PostgreSQL.
 */
import type { IdempotencyState, IdempotencyStore, KeptResponse } from '../port.js';
import { idempotencyState } from '../sql/idempotency.js';
import type { Row } from '../sql/rows.js';
import type { PostgresDatabase } from './database.js';

export function postgresIdempotency(database: PostgresDatabase): IdempotencyStore {
  async function claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState> {
    return database.transaction(async (client) => {
      await client.query('DELETE FROM idempotency_keys WHERE created_at < $1', [now - limits.keepFor]);
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
      const state = idempotencyState(rows[0] as Row, fingerprint, now, limits.staleAfter, () => undefined);
      if (state.state === 'new') {
        await client.query('UPDATE idempotency_keys SET created_at = $1 WHERE scope = $2 AND key = $3', [
          now,
          scope,
          key,
        ]);
      }
      return state;
    });
  }

  async function finishIdempotencyKey(scope: string, key: string, response: KeptResponse | null): Promise<void> {
    if (response) {
      await database.rows(
        'UPDATE idempotency_keys SET status = $1, headers = $2, body = $3 WHERE scope = $4 AND key = $5',
        [response.status, JSON.stringify(response.headers), response.body, scope, key],
      );
    } else {
      await database.rows('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]);
    }
  }

  return { claimIdempotencyKey, finishIdempotencyKey };
}
