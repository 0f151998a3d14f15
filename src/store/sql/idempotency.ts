/**
 * Idempotency keys as every adapter keeps them: what a stored key means for a new request.
 */
import type { IdempotencyState } from '../port.js';
import { sql, type Sql } from './builder.js';
import type { Row } from './rows.js';

/** A stored key taken over by a new claim: it holds the new request, and nothing of the old one. */
export function takeOverKey(scope: string, key: string, fingerprint: string, now: number): Sql {
  return sql`UPDATE idempotency_keys SET fingerprint = ${fingerprint}, created_at = ${now}, status = NULL,
    headers = NULL, body = NULL, user_id = NULL WHERE scope = ${scope} AND key = ${key}`;
}

/**
 * What a stored idempotency key means for a new request with `fingerprint`; `takeOver` claims
 * the stored key for the new request (a key past `keepFor`, or a claim past `staleAfter`).
 */
export function idempotencyState(
  row: Row,
  fingerprint: string,
  now: number,
  limits: { staleAfter: number; keepFor: number },
  takeOver: () => unknown,
): IdempotencyState {
  const claimedAt = Number(row.created_at);
  // Expired: as good as unused, whatever request it was (the retention job has not come by yet).
  if (claimedAt < now - limits.keepFor) {
    takeOver();
    return { state: 'new' };
  }
  if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (row.status === null) {
    // The process that claimed it died before it answered: this retry runs the request instead.
    if (claimedAt < now - limits.staleAfter) {
      takeOver();
      return { state: 'new' };
    }
    return { state: 'in-progress' };
  }
  return {
    state: 'replay',
    response: {
      status: Number(row.status),
      headers: JSON.parse(row.headers as string) as Record<string, string>,
      body: row.body as string,
    },
  };
}
