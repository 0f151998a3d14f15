/**
 * Idempotency keys on SQLite.
 */
import type { IdempotencyState, IdempotencyStore, KeptResponse } from '../port.js';
import { idempotencyState } from '../sql/idempotency.js';
import type { Row } from '../sql/rows.js';
import type { SqliteDatabase } from './database.js';

export function sqliteIdempotency(database: SqliteDatabase): IdempotencyStore {
  const { db } = database;

  const forget = db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');
  const select = db.prepare('SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?');
  const insert = db.prepare('INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES (?, ?, ?, ?)');
  const takeOver = db.prepare('UPDATE idempotency_keys SET created_at = ? WHERE scope = ? AND key = ?');

  async function claimIdempotencyKey(
    scope: string,
    key: string,
    fingerprint: string,
    now: number,
    limits: { staleAfter: number; keepFor: number },
  ): Promise<IdempotencyState> {
    return db
      .transaction((): IdempotencyState => {
        forget.run(now - limits.keepFor);
        const row = select.get(scope, key) as Row | undefined;
        if (!row) {
          insert.run(scope, key, fingerprint, now);
          return { state: 'new' };
        }
        return idempotencyState(row, fingerprint, now, limits.staleAfter, () => takeOver.run(now, scope, key));
      })
      .immediate();
  }

  const keep = db.prepare('UPDATE idempotency_keys SET status = ?, headers = ?, body = ? WHERE scope = ? AND key = ?');
  const release = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');

  async function finishIdempotencyKey(scope: string, key: string, response: KeptResponse | null): Promise<void> {
    if (response) keep.run(response.status, JSON.stringify(response.headers), response.body, scope, key);
    else release.run(scope, key);
  }

  return { claimIdempotencyKey, finishIdempotencyKey };
}
