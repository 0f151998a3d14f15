/**
 * Idempotency keys on SQLite.
 */
import type { IdempotencyState, IdempotencyStore, KeptResponse } from '../port.js';
import { idempotencyState, takeOverKey } from '../sql/idempotency.js';
import type { Row } from '../sql/rows.js';
import type { SqliteDatabase } from './database.js';

export function sqliteIdempotency(database: SqliteDatabase): IdempotencyStore {
  const { db } = database;

  const select = db.prepare('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?');
  const insert = db.prepare('INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES (?, ?, ?, ?)');

  async function claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState> {
    return db
      .transaction((): IdempotencyState => {
        const row = select.get(scope, key) as Row | undefined;
        if (!row) {
          insert.run(scope, key, fingerprint, now);
          return { state: 'new' };
        }
        return idempotencyState(row, fingerprint, now, limits, () => {
          const { statement, values } = database.statement(takeOverKey(scope, key, fingerprint, now));
          statement.run(...values);
        });
      })
      .immediate();
  }

  const keep = db.prepare(
    'UPDATE idempotency_keys SET status = ?, headers = ?, body = ?, user_id = ? WHERE scope = ? AND key = ?',
  );
  const release = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?').pluck();

  async function finishIdempotencyKey(
    scope: string,
    key: string,
    response: KeptResponse | null,
    userId: string | null,
  ): Promise<void> {
    db.transaction(() => {
      if (response && (userId === null || userExists.get(userId))) {
        keep.run(response.status, JSON.stringify(response.headers), response.body, userId, scope, key);
      } else {
        release.run(scope, key);
      }
    })();
  }

  return { claimKey: claimIdempotencyKey, finishKey: finishIdempotencyKey };
}
