/**
 * Idempotency keys as every adapter keeps them: what a stored key means for a new request.
 */
import type { IdempotencyState } from '../port.js';
import type { Row } from './rows.js';

/** What a stored idempotency key means for a new request with `fingerprint`. */
export function idempotencyState(
  row: Row,
  fingerprint: string,
  now: number,
  staleAfter: number,
  takeOver: () => unknown,
): IdempotencyState {
  if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
  if (row.status === null) {
    // The process that claimed it died before it answered: this retry runs the request instead.
    if (Number(row.created_at) < now - staleAfter) {
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
